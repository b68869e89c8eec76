// exe::firmware_layout: the firmware's layout from its ELF symbols, and the errors that name
// a missing symbol or symbols out of order. (The real firmware's layout is checked against
// its link script's promises in tests/firmware/firmware_elf_test.cpp.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tessera/exe/firmware_layout.h"

namespace {

using namespace tessera;
using ::testing::AllOf;
using ::testing::HasSubstr;

exe::ElfImage image() {
  exe::ElfImage fw;
  fw.entry = 0x80000000u;
  fw.symbols = {{"__text_end", 0x80003000u},      {"tessera_tile_header", 0x80003040u},
                {"__stack_bottom", 0x80004000u},  {"__stack_top", 0x80005000u},
                {"__firmware_end", 0x80006000u},  {"other", 0x80000010u}};
  return fw;
}

std::string error_of(const exe::ElfImage& fw) {
  try {
    exe::firmware_layout(fw, "fw.elf");
  } catch (const exe::ElfError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FirmwareLayout, ReadsEverySymbol) {
  const exe::FirmwareLayout l = exe::firmware_layout(image());
  EXPECT_EQ(l.entry, 0x80000000u);
  EXPECT_EQ(l.text_end, 0x80003000u);
  EXPECT_EQ(l.header, 0x80003040u);
  EXPECT_EQ(l.stack_bottom, 0x80004000u);
  EXPECT_EQ(l.stack_top, 0x80005000u);
  EXPECT_EQ(l.firmware_end, 0x80006000u);
  EXPECT_EQ(l.stack_bytes(), 0x1000u);
}

TEST(FirmwareLayout, AMissingSymbolIsNamed) {
  for (const char* s : {"tessera_tile_header", "__text_end", "__stack_bottom", "__stack_top", "__firmware_end"}) {
    exe::ElfImage fw = image();
    fw.symbols.erase(fw.symbols.find(s));
    EXPECT_THAT(error_of(fw), AllOf(HasSubstr("fw.elf"), HasSubstr(std::string("no symbol '") + s + "'"))) << s;
  }
}

TEST(FirmwareLayout, SymbolsOutOfOrderAreNamed) {
  exe::ElfImage fw = image();
  fw.symbols["__stack_bottom"] = 0x80005004u;
  EXPECT_THAT(error_of(fw), AllOf(HasSubstr("__stack_bottom (0x80005004)"), HasSubstr("__stack_top (0x80005000)")));
  fw = image();
  fw.symbols["__stack_top"] = 0x80006004u;
  EXPECT_THAT(error_of(fw), AllOf(HasSubstr("__stack_top"), HasSubstr("__firmware_end")));
  fw = image();
  fw.symbols["tessera_tile_header"] = 0x80006000u;
  EXPECT_THAT(error_of(fw), AllOf(HasSubstr("tessera_tile_header (0x80006000)"), HasSubstr("not below")));
  fw = image();
  fw.entry = 0x80003004u;
  EXPECT_THAT(error_of(fw), AllOf(HasSubstr("entry"), HasSubstr("__text_end")));
}

}  // namespace
