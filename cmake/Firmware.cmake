# Builds firmware/ (tile code) with the RISC-V toolchain as an external project, after the
# arch headers it includes are generated. TESSERA_TILE_BIN_DIR is where its ELFs land.
# Isolated from the host build's flags: CMake would take CFLAGS, CXXFLAGS, ASMFLAGS and
# LDFLAGS from the environment (an exported -fsanitize=... or -march=native breaks the
# RISC-V build), so its configure step runs with them unset; the host's add_compile_options
# (sanitizers, fuzzing) do not reach an external project.
include(ExternalProject)
set(TESSERA_TILE_BIN_DIR ${CMAKE_BINARY_DIR}/firmware CACHE INTERNAL "tile ELFs")
ExternalProject_Add(tessera_firmware
  SOURCE_DIR ${PROJECT_SOURCE_DIR}/firmware
  BINARY_DIR ${TESSERA_TILE_BIN_DIR}
  CMAKE_COMMAND ${CMAKE_COMMAND} -E env --unset=CFLAGS --unset=CXXFLAGS --unset=ASMFLAGS --unset=LDFLAGS
                --unset=CPPFLAGS ${CMAKE_COMMAND}
  CMAKE_GENERATOR ${CMAKE_GENERATOR}
  CMAKE_ARGS
    -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/riscv-tile.cmake
    -DCMAKE_BUILD_TYPE=Release
    -DTESSERA_ARCH_INCLUDE_DIR=${TESSERA_ARCH_INCLUDE_DIR}
  BUILD_ALWAYS ON
  INSTALL_COMMAND ""
  USES_TERMINAL_BUILD ON)
add_dependencies(tessera_firmware tessera_arch_gen)
