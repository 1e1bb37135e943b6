// RUN: coalesce-opt %s --coalesce-lower-to-library | mlir-opt --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s
// RUN: llvm-nm --defined-only %coalesce_build/compiler/runtime/libcoalesce_runtime.a | FileCheck %s --check-prefix=RUNTIME

// After coalesce-lower-to-library, MLIR's standard lowering calls every entry point through its
// C interface: `_mlir_ciface_<name>` with pointers to memref descriptors (an allocator also
// returns its memref through the first pointer). These are the symbols the runtime library
// defines (RUNTIME), so the object links against it.
// CHECK-DAG: declare void @_mlir_ciface_coalesce_alloc_2d_f32(ptr, i64, i64)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_alloc_1d_f32(ptr, i64)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_free_2d_f32(ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_free_1d_f32(ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_matmul_f32(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_bias_add_f32(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_relu_f32(ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_gelu_f32(ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_none(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_bias(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_bias_relu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_bias_gelu(ptr, ptr, ptr, ptr)
// CHECK-DAG: define void @_mlir_ciface_every_entry(ptr %0, ptr %1, ptr %2, ptr %3)
// RUNTIME-DAG: T _mlir_ciface_coalesce_alloc_2d_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_alloc_1d_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_free_2d_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_free_1d_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_matmul_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_bias_add_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_relu_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_gelu_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_none{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_bias{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_bias_relu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu{{$}}
func.func @every_entry(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>)
    attributes {llvm.emit_c_interface} {
  %t = memref.alloc() : memref<64x16xf32>
  %v = memref.alloc() : memref<16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %v : memref<64x16xf32>, memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.relu ins(%t : memref<64x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.gelu ins(%t : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.fused_matmul none ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.fused_matmul bias ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.fused_matmul bias_relu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  memref.dealloc %t : memref<64x16xf32>
  memref.dealloc %v : memref<16xf32>
  return
}
