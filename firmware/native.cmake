# Native mode (host build): the tile firmware's runtime and codelets compiled for the host,
# for the emulator's native mode: library tessera_firmware_native, public header
# "runtime/native.h" (include root: firmware/). Included by the top-level CMakeLists.txt
# (the tile build of the same sources is firmware/runtime/CMakeLists.txt).
#
# The FP rules of runtime/fp_rules.h apply here too: -ffp-contract=off -fno-math-errno,
# never -ffast-math. Left out: the .S files, main.cpp (the RISC-V main loop), header.cpp
# (the header symbol: in native mode the header is in the tile's SRAM) and stubs.cpp.
file(GLOB TESSERA_FW_NATIVE_CODELETS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/codelets/*.cpp)
tessera_library(tessera_firmware_native
  SRCS ${CMAKE_CURRENT_LIST_DIR}/runtime/interpreter.cpp
       ${CMAKE_CURRENT_LIST_DIR}/runtime/native.cpp
       ${CMAKE_CURRENT_LIST_DIR}/runtime/native_simd.cpp
       ${CMAKE_CURRENT_LIST_DIR}/runtime/native_simd_conv2d.cpp
       ${CMAKE_CURRENT_LIST_DIR}/runtime/native_simd_elementwise.cpp
       ${CMAKE_CURRENT_LIST_DIR}/runtime/native_simd_maxpool2d.cpp
       ${TESSERA_FW_NATIVE_CODELETS}
  DEPS tessera_arch)
target_include_directories(tessera_firmware_native PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}>
                                                          $<INSTALL_INTERFACE:include/tessera/firmware>)
target_compile_options(tessera_firmware_native PRIVATE -ffp-contract=off -fno-math-errno -fno-strict-aliasing)
# The fuzz build (Clang 14, ASan and UBSan) compiles the convolution's vector kernels with
# coverage but without the sanitizers: instrumented, that one file took over 15 min of CPU
# (about 3 uninstrumented), most of CI's fuzzing step. The sanitizer build (GCC,
# scripts/test-sanitize) checks them, against the portable loops (native_simd_test) and end
# to end; fuzz_control's inputs still reach them (docs/hardening.md).
if(TESSERA_FUZZ)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/runtime/native_simd_conv2d.cpp
                              PROPERTIES COMPILE_OPTIONS "-fno-sanitize=address,undefined")
endif()
