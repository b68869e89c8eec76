# Small wrappers so that every Tessera library, tool and test is declared the same way
# (in the manner of Abseil's absl_cc_library): warnings as errors on our own code only.

set(TESSERA_WARNINGS -Wall -Wextra -Werror)

# tessera_library(NAME SRCS ... [DEPS ...] [PUBLIC_INCLUDE dir])
function(tessera_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  target_compile_options(${name} PRIVATE ${TESSERA_WARNINGS})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
    # The source tree's headers in the build, the package's include/ once installed
    # (cmake/Install.cmake).
    target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                              $<INSTALL_INTERFACE:include>)
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# tessera_executable(NAME SRCS ... [DEPS ...])
function(tessera_executable name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_compile_options(${name} PRIVATE ${TESSERA_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
endfunction()

# tessera_test(NAME SRCS ... [DEPS ...]): a GoogleTest binary, its tests discovered by ctest.
function(tessera_test name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  tessera_executable(${name} SRCS ${ARG_SRCS} DEPS ${ARG_DEPS} GTest::gtest_main tessera_test_support)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()
