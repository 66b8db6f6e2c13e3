# cmake --install: the fdbench binary (apps/fdbench), the static and shared libraries, the
# public headers, a CMake package (find_package(fdbench) -> fdbench::fdbench) and fdbench.pc.
include(CMakePackageConfigHelpers)

set(FDBENCH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/fdbench)
set(fdbench_libraries fdbench)
if(FDBENCH_BUILD_SHARED)
  list(APPEND fdbench_libraries fdbench_shared)
endif()
install(TARGETS ${fdbench_libraries} EXPORT fdbenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fdbench DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT fdbenchTargets NAMESPACE fdbench:: DESTINATION ${FDBENCH_CMAKE_DIR})

# What the static library links privately, for the package config and fdbench.pc.
set(FDBENCH_WITH_URING_LIB OFF)
set(FDBENCH_WITH_LIBUV_LIB OFF)
set(fdbench_pc_requires "fmt sqlite3")
if(LIBURING_FOUND)
  set(FDBENCH_WITH_URING_LIB ON)
  string(APPEND fdbench_pc_requires " liburing")
endif()
if(LIBUV_FOUND)
  set(FDBENCH_WITH_LIBUV_LIB ON)
  string(APPEND fdbench_pc_requires " libuv")
endif()
# A C program linking the static library also needs the C++ runtime: what the C++ compiler
# links implicitly beyond what the C compiler does (libstdc++ and libm with g++).
set(fdbench_pc_libs_private "")
foreach(lib IN LISTS CMAKE_CXX_IMPLICIT_LINK_LIBRARIES)
  if(NOT lib IN_LIST CMAKE_C_IMPLICIT_LINK_LIBRARIES)
    string(APPEND fdbench_pc_libs_private " -l${lib}")
  endif()
endforeach()
# The prefix is found relative to the .pc file, so `cmake --install --prefix DIR` works.
file(RELATIVE_PATH fdbench_pc_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fdbenchConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/fdbenchConfig.cmake
                              INSTALL_DESTINATION ${FDBENCH_CMAKE_DIR})
# 0.x: a minor release may break compatibility, as with the shared library's SOVERSION.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fdbenchConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fdbenchConfig.cmake ${PROJECT_BINARY_DIR}/fdbenchConfigVersion.cmake
        DESTINATION ${FDBENCH_CMAKE_DIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/fdbench.pc.in ${PROJECT_BINARY_DIR}/fdbench.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/fdbench.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
