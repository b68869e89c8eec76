# Toolchain for tile code: Debian's riscv64-unknown-elf-gcc with picolibc, RV32IMF, ilp32f.
# Multilib selection goes by the exact -march string, so compile with the full ISA string
# (Zicsr, Zifencei) but link with the one the rv32imf/ilp32f multilib is named after.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Tile code has no errno: sqrtf and friends compile to their instructions.
set(TILE_COMPILE_FLAGS "-march=rv32imf_zicsr_zifencei -mabi=ilp32f -mcmodel=medany --specs=picolibc.specs -fno-math-errno")
set(CMAKE_C_FLAGS_INIT "${TILE_COMPILE_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${TILE_COMPILE_FLAGS} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${TILE_COMPILE_FLAGS}")
# Link with the multilib's own -march (a later -march on the command line wins); the
# compile flags, picolibc.specs among them, are on the link line already.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-march=rv32imf -mabi=ilp32f -nostartfiles -Wl,--no-warn-rwx-segments")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
