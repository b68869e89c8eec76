# The installed package: `cmake --install BUILD --prefix PREFIX` gives PREFIX/include (the
# public headers), PREFIX/lib (the static libraries of the compiler, runtime and emulator),
# PREFIX/lib/cmake/Tessera (find_package(Tessera): targets Tessera::<library> and
# Tessera::tessera, all of them), PREFIX/share/tessera/firmware (the tile firmware, which
# every compile links in: variable Tessera_FIRMWARE) and PREFIX/bin/tessera.
# examples/cpp-api builds against it (docs/cpp-api.md).
include(CMakePackageConfigHelpers)

set(TESSERA_PACKAGE_LIBRARIES
  tessera_arch tessera_device tessera_fp tessera_firmware_native tessera_emu tessera_exe
  tessera_graph tessera_ops tessera_opgraph tessera_passes tessera_runtime tessera_npy)
add_library(tessera_all INTERFACE)
target_link_libraries(tessera_all INTERFACE ${TESSERA_PACKAGE_LIBRARIES})
set_target_properties(tessera_all PROPERTIES EXPORT_NAME tessera)
if(TESSERA_SANITIZE)
  # Instrumented libraries need the sanitizers' runtimes wherever they are linked: the
  # package's users link with the same -fsanitize= (package.cpp_api_example, sanitizer build).
  foreach(lib ${TESSERA_PACKAGE_LIBRARIES})
    target_link_options(${lib} INTERFACE -fsanitize=${TESSERA_SANITIZE})
  endforeach()
endif()
install(TARGETS ${TESSERA_PACKAGE_LIBRARIES} tessera_all EXPORT TesseraTargets ARCHIVE DESTINATION lib)
install(TARGETS tessera RUNTIME DESTINATION bin)

# Headers: each library's include/ folder, the generated arch headers, and the firmware
# headers the Graph API and native mode include ("codelets/codelets.h", "runtime/native.h").
foreach(dir arch/include ${TESSERA_ARCH_INCLUDE_DIR} host/device/include sim/emu/fp/include sim/emu/include
            exe/include compiler/graph/include compiler/ops/include compiler/opgraph/include
            compiler/passes/include host/runtime/include host/npy/include)
  if(NOT IS_ABSOLUTE ${dir})
    set(dir ${PROJECT_SOURCE_DIR}/${dir})
  endif()
  install(DIRECTORY ${dir}/ DESTINATION include FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
endforeach()
foreach(sub codelets runtime common)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/firmware/${sub} DESTINATION include/tessera/firmware
          FILES_MATCHING PATTERN "*.h" PATTERN "tools" EXCLUDE)
endforeach()
install(FILES ${TESSERA_TILE_BIN_DIR}/runtime/tessera-firmware.elf DESTINATION share/tessera/firmware)

install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION lib/cmake/Tessera)
set(TESSERA_FIRMWARE_INSTALLED share/tessera/firmware/tessera-firmware.elf)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TesseraConfig.cmake.in
  ${CMAKE_BINARY_DIR}/TesseraConfig.cmake INSTALL_DESTINATION lib/cmake/Tessera
  PATH_VARS TESSERA_FIRMWARE_INSTALLED)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake VERSION 0.1.0
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/TesseraConfig.cmake ${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake
  DESTINATION lib/cmake/Tessera)
