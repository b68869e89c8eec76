// What stand-alone tile programs (crt0.S) provide: exit and console through HTIF.
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
__attribute__((noreturn)) void tile_exit(int status);
void tile_putchar(int c);
#ifdef __cplusplus
}
#endif

static inline void tile_puts(const char* s) {
  while (*s) tile_putchar(*s++);
}

static inline void tile_puthex(uint32_t v) {
  for (int i = 28; i >= 0; i -= 4) tile_putchar("0123456789abcdef"[(v >> i) & 15]);
}
