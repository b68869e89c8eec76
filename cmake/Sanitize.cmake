# Sanitizer and fuzzing builds of the host code (docs/hardening.md).
#
#   -DTESSERA_SANITIZE=address,undefined   every host target built and linked with these
#                                          sanitizers (GCC or Clang), errors fatal
#   -DTESSERA_FUZZ=ON                      (Clang only) the libFuzzer harnesses of tests/fuzz,
#                                          with ASan and UBSan, the libraries instrumented
#                                          for coverage
# Tile code (the RISC-V firmware) is never instrumented: it is an external project with its
# own toolchain, and Firmware.cmake configures it with the host's CFLAGS and friends unset.
set(TESSERA_SANITIZE "" CACHE STRING "sanitizers for the host code, e.g. address,undefined (empty: none)")
option(TESSERA_FUZZ "build the libFuzzer harnesses (Clang; implies address,undefined)" OFF)

if(TESSERA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TESSERA_FUZZ needs Clang (e.g. -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14)")
  endif()
  if(NOT TESSERA_SANITIZE)
    set(TESSERA_SANITIZE "address,undefined" CACHE STRING "" FORCE)
  endif()
  # Every library the harnesses link gives the fuzzer its coverage.
  add_compile_options(-fsanitize=fuzzer-no-link)
  # Clang's extra warnings on code written for GCC: the ISS's and the FP library's
  # branch-free `&`/`|` on booleans are deliberate.
  list(APPEND TESSERA_WARNINGS -Wno-bitwise-instead-of-logical)
endif()

if(TESSERA_SANITIZE)
  message(STATUS "Sanitizers: ${TESSERA_SANITIZE}")
  add_compile_options(-fsanitize=${TESSERA_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${TESSERA_SANITIZE})
  if(NOT TESSERA_FUZZ AND CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
    # -O1 and line tables only, to fit CI's time (about half the compile CPU of -O2 -g); the
    # reports still name file and line (docs/hardening.md).
    set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
    set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports false overflows and bounds on inlined vector code under ASan (the
    # instrumentation defeats its range analysis); the sanitizers check the real accesses.
    list(APPEND TESSERA_WARNINGS -Wno-stringop-overflow -Wno-array-bounds -Wno-maybe-uninitialized)
  endif()
endif()
