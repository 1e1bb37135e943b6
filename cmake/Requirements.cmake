# Finds every external dependency of Coalesce. A missing one stops configuration with one
# sentence naming the Debian package that provides it (scripts/install-deps.sh installs them all).

function(coalesce_missing what apt_package)
  message(FATAL_ERROR
    "Coalesce needs ${what}, which was not found: install the Debian package '${apt_package}' "
    "(or run scripts/install-deps.sh).")
endfunction()

# --- CUDA 13: nvcc, static cudart, NVRTC, cuBLAS, cuBLASLt -------------------------------
find_package(CUDAToolkit 13 QUIET)
if(NOT CUDAToolkit_FOUND)
  coalesce_missing("the CUDA 13 toolkit (nvcc, cudart, NVRTC, cuBLAS)" "cuda-toolkit-13-0")
endif()
foreach(target CUDA::cudart_static CUDA::nvrtc CUDA::cublas CUDA::cublasLt)
  if(NOT TARGET ${target})
    coalesce_missing("${target} from the CUDA toolkit" "cuda-toolkit-13-0")
  endif()
endforeach()

# --- MLIR / LLVM 22 from Debian ---------------------------------------------------------------
find_package(MLIR QUIET CONFIG PATHS /usr/lib/llvm-22/lib/cmake/mlir NO_DEFAULT_PATH)
if(NOT MLIR_FOUND OR NOT LLVM_VERSION_MAJOR EQUAL 22)
  coalesce_missing("MLIR 22 (CMake package MLIRConfig.cmake)" "libmlir-22-dev")
endif()
find_program(COALESCE_LIT lit PATHS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin NO_DEFAULT_PATH)
find_program(COALESCE_FILECHECK FileCheck PATHS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin NO_DEFAULT_PATH)
if(NOT COALESCE_LIT OR NOT COALESCE_FILECHECK)
  coalesce_missing("LLVM's lit and FileCheck" "llvm-22-tools")
endif()
find_program(COALESCE_MLIR_TBLGEN mlir-tblgen PATHS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin NO_DEFAULT_PATH)
if(NOT COALESCE_MLIR_TBLGEN)
  coalesce_missing("mlir-tblgen" "mlir-22-tools")
endif()
set(MLIR_TABLEGEN_EXE ${COALESCE_MLIR_TBLGEN} CACHE FILEPATH "" FORCE)
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

# Debian's MLIR targets link LLVM as the one shared libLLVM.so.22, which the GPU host does not
# have. Point the imported LLVM target at the static Support library instead, so every tool
# carries the LLVM it uses (docs/working.md: `ldd` on a tool shows no libLLVM).
set(_llvm_lib ${LLVM_LIBRARY_DIR})
if(NOT EXISTS ${_llvm_lib}/libLLVMSupport.a OR NOT EXISTS ${_llvm_lib}/libLLVMDemangle.a)
  coalesce_missing("LLVM 22's static libraries (libLLVMSupport.a)" "llvm-22-dev")
endif()
find_package(ZLIB QUIET)
if(NOT ZLIB_FOUND)
  coalesce_missing("zlib" "zlib1g-dev")
endif()
find_library(COALESCE_ZSTD NAMES libzstd.a zstd)
if(NOT COALESCE_ZSTD)
  coalesce_missing("zstd" "libzstd-dev")
endif()
foreach(config RELWITHDEBINFO RELEASE DEBUG MINSIZEREL NOCONFIG)
  set_target_properties(LLVM PROPERTIES
    IMPORTED_LOCATION_${config} ${_llvm_lib}/libLLVMSupport.a
    IMPORTED_SONAME_${config} "")
endforeach()
set_target_properties(LLVM PROPERTIES
  IMPORTED_LOCATION ${_llvm_lib}/libLLVMSupport.a
  INTERFACE_LINK_LIBRARIES
    "${_llvm_lib}/libLLVMRemarks.a;${_llvm_lib}/libLLVMBitstreamReader.a;${_llvm_lib}/libLLVMSupport.a;${_llvm_lib}/libLLVMDemangle.a;ZLIB::ZLIB;${COALESCE_ZSTD};pthread;dl")
# (MlirOptMain streams remarks: Remarks and BitstreamReader follow Support, which they use.)
# The imported target was declared SHARED; a static archive under that name links fine, but
# CMake must not add it to the rpath machinery as a shared object.
set_property(TARGET LLVM PROPERTY IMPORTED_NO_SONAME TRUE)

# --- SQLite 3, linked statically so the GPU host needs no libsqlite3 of a given version --------
find_path(COALESCE_SQLITE_INCLUDE sqlite3.h)
find_library(COALESCE_SQLITE_STATIC libsqlite3.a)
if(NOT COALESCE_SQLITE_INCLUDE OR NOT COALESCE_SQLITE_STATIC)
  coalesce_missing("SQLite 3 (header and static library)" "libsqlite3-dev")
endif()
add_library(coalesce_sqlite3 INTERFACE)
target_include_directories(coalesce_sqlite3 INTERFACE ${COALESCE_SQLITE_INCLUDE})
target_link_libraries(coalesce_sqlite3 INTERFACE ${COALESCE_SQLITE_STATIC} pthread dl m)

# --- Header libraries and tests ------------------------------------------------------------------
find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  coalesce_missing("nlohmann/json" "nlohmann-json3-dev")
endif()
find_package(CLI11 QUIET)
if(NOT CLI11_FOUND)
  coalesce_missing("CLI11" "libcli11-dev")
endif()
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  coalesce_missing("GoogleTest" "libgtest-dev")
endif()

# --- Tools the tests run ---------------------------------------------------------------------------
# Required here rather than tests skipped or left unregistered where they are missing: a test that
# quietly disappears reads as green (tests/expected-skips.txt lists the only skips allowed).
find_program(COALESCE_PYTHON3 python3 HINTS /usr/bin)
if(NOT COALESCE_PYTHON3)
  coalesce_missing("python3 (the scripts' tests and the GPU evidence check)" "python3")
endif()
find_program(COALESCE_SQLITE3_SHELL sqlite3)
if(NOT COALESCE_SQLITE3_SHELL)
  coalesce_missing("the sqlite3 shell (the report's fixture tests)" "sqlite3")
endif()
