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

// The other dtypes' entries (mlir_entries.cpp): 16-bit allocators, and a matmul and every untiled
// fused matmul of tf32 (f32 memrefs), bf16 and f16.
// CHECK-DAG: declare void @_mlir_ciface_coalesce_alloc_2d_bf16(ptr, i64, i64)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_alloc_1d_bf16(ptr, i64)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_free_2d_bf16(ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_free_1d_bf16(ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_alloc_2d_f16(ptr, i64, i64)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_alloc_1d_f16(ptr, i64)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_free_2d_f16(ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_free_1d_f16(ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_matmul_tf32(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_none(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_bias(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_bias_relu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_bias_gelu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_matmul_bf16(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_none(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_bias(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_bias_relu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_bias_gelu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_matmul_f16(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_none(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_bias(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_bias_relu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_bias_gelu(ptr, ptr, ptr, ptr)
// RUNTIME-DAG: T _mlir_ciface_coalesce_alloc_2d_bf16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_alloc_1d_bf16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_free_2d_bf16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_free_1d_bf16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_alloc_2d_f16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_alloc_1d_f16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_free_2d_f16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_free_1d_f16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_matmul_tf32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_none{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_bias{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_bias_relu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_bias_gelu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_matmul_bf16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_none{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_bias{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_bias_relu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_bias_gelu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_matmul_f16{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_none{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_bias{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_bias_relu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_bias_gelu{{$}}
func.func @every_other_dtype(%x: memref<64x32xf32>, %y: memref<32x16xf32>, %z: memref<64x16xf32>, %zb: memref<16xf32>) {
  coalesce.matmul ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul none ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul bias ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul bias_relu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul bias_gelu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  %a_bf16 = memref.alloc() : memref<64x32xbf16>
  %b_bf16 = memref.alloc() : memref<32x16xbf16>
  %c_bf16 = memref.alloc() : memref<64x16xbf16>
  %bias_bf16 = memref.alloc() : memref<16xbf16>
  coalesce.matmul ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  coalesce.fused_matmul none ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  coalesce.fused_matmul bias ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias_bf16 : memref<16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  coalesce.fused_matmul bias_relu ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias_bf16 : memref<16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  coalesce.fused_matmul bias_gelu ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias_bf16 : memref<16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  memref.dealloc %a_bf16 : memref<64x32xbf16>
  memref.dealloc %b_bf16 : memref<32x16xbf16>
  memref.dealloc %c_bf16 : memref<64x16xbf16>
  memref.dealloc %bias_bf16 : memref<16xbf16>
  %a_f16 = memref.alloc() : memref<64x32xf16>
  %b_f16 = memref.alloc() : memref<32x16xf16>
  %c_f16 = memref.alloc() : memref<64x16xf16>
  %bias_f16 = memref.alloc() : memref<16xf16>
  coalesce.matmul ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) outs(%c_f16 : memref<64x16xf16>)
  coalesce.fused_matmul none ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) outs(%c_f16 : memref<64x16xf16>)
  coalesce.fused_matmul bias ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) bias(%bias_f16 : memref<16xf16>) outs(%c_f16 : memref<64x16xf16>)
  coalesce.fused_matmul bias_relu ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) bias(%bias_f16 : memref<16xf16>) outs(%c_f16 : memref<64x16xf16>)
  coalesce.fused_matmul bias_gelu ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) bias(%bias_f16 : memref<16xf16>) outs(%c_f16 : memref<64x16xf16>)
  memref.dealloc %a_f16 : memref<64x32xf16>
  memref.dealloc %b_f16 : memref<32x16xf16>
  memref.dealloc %c_f16 : memref<64x16xf16>
  memref.dealloc %bias_f16 : memref<16xf16>
  return
}

// The entries of the epilogues since issue 40 in every dtype, with each row's operands (a
// residual after the bias; a gated C of N/2 columns), and the unfused f32 ops of issue 40.
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_tanh(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_bias_silu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_residual(ptr, ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_swiglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f32_geglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_bias_gelu_tanh(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_bias_silu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_bias_gelu_residual(ptr, ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_swiglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_tf32_geglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_bias_gelu_tanh(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_bias_silu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_bias_gelu_residual(ptr, ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_swiglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_bf16_geglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_bias_gelu_tanh(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_bias_silu(ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_bias_gelu_residual(ptr, ptr, ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_swiglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_fused_matmul_f16_geglu(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_gelu_tanh_f32(ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_silu_f32(ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_add_f32(ptr, ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_glu_silu_f32(ptr, ptr)
// CHECK-DAG: declare void @_mlir_ciface_coalesce_glu_gelu_f32(ptr, ptr)
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_tanh{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_bias_silu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu_residual{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_swiglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f32_geglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_bias_gelu_tanh{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_bias_silu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_bias_gelu_residual{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_swiglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_tf32_geglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_bias_gelu_tanh{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_bias_silu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_bias_gelu_residual{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_swiglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_bf16_geglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_bias_gelu_tanh{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_bias_silu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_bias_gelu_residual{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_swiglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_fused_matmul_f16_geglu{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_gelu_tanh_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_silu_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_add_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_glu_silu_f32{{$}}
// RUNTIME-DAG: T _mlir_ciface_coalesce_glu_gelu_f32{{$}}
func.func @issue_40_entries(%x: memref<64x32xf32>, %y: memref<32x16xf32>, %z: memref<64x16xf32>, %zb: memref<16xf32>, %zr: memref<64x16xf32>, %zg: memref<64x8xf32>) {
  coalesce.fused_matmul bias_gelu_tanh ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) outs(%z : memref<64x16xf32>)
  coalesce.fused_matmul bias_silu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) outs(%z : memref<64x16xf32>)
  coalesce.fused_matmul bias_gelu_residual ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) residual(%zr : memref<64x16xf32>) outs(%z : memref<64x16xf32>)
  coalesce.fused_matmul swiglu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%zg : memref<64x8xf32>)
  coalesce.fused_matmul geglu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%zg : memref<64x8xf32>)
  coalesce.fused_matmul bias_gelu_tanh ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul bias_silu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul bias_gelu_residual ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%zb : memref<16xf32>) residual(%zr : memref<64x16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul swiglu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%zg : memref<64x8xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul geglu ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%zg : memref<64x8xf32>) {math = #coalesce.math<tensorfloat32>}
  %a_bf16 = memref.alloc() : memref<64x32xbf16>
  %b_bf16 = memref.alloc() : memref<32x16xbf16>
  %c_bf16 = memref.alloc() : memref<64x16xbf16>
  %bias_bf16 = memref.alloc() : memref<16xbf16>
  %r_bf16 = memref.alloc() : memref<64x16xbf16>
  %g_bf16 = memref.alloc() : memref<64x8xbf16>
  coalesce.fused_matmul bias_gelu_tanh ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias_bf16 : memref<16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  coalesce.fused_matmul bias_silu ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias_bf16 : memref<16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  coalesce.fused_matmul bias_gelu_residual ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias_bf16 : memref<16xbf16>) residual(%r_bf16 : memref<64x16xbf16>) outs(%c_bf16 : memref<64x16xbf16>)
  coalesce.fused_matmul swiglu ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) outs(%g_bf16 : memref<64x8xbf16>)
  coalesce.fused_matmul geglu ins(%a_bf16, %b_bf16 : memref<64x32xbf16>, memref<32x16xbf16>) outs(%g_bf16 : memref<64x8xbf16>)
  memref.dealloc %a_bf16 : memref<64x32xbf16>
  memref.dealloc %b_bf16 : memref<32x16xbf16>
  memref.dealloc %c_bf16 : memref<64x16xbf16>
  memref.dealloc %bias_bf16 : memref<16xbf16>
  memref.dealloc %r_bf16 : memref<64x16xbf16>
  memref.dealloc %g_bf16 : memref<64x8xbf16>
  %a_f16 = memref.alloc() : memref<64x32xf16>
  %b_f16 = memref.alloc() : memref<32x16xf16>
  %c_f16 = memref.alloc() : memref<64x16xf16>
  %bias_f16 = memref.alloc() : memref<16xf16>
  %r_f16 = memref.alloc() : memref<64x16xf16>
  %g_f16 = memref.alloc() : memref<64x8xf16>
  coalesce.fused_matmul bias_gelu_tanh ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) bias(%bias_f16 : memref<16xf16>) outs(%c_f16 : memref<64x16xf16>)
  coalesce.fused_matmul bias_silu ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) bias(%bias_f16 : memref<16xf16>) outs(%c_f16 : memref<64x16xf16>)
  coalesce.fused_matmul bias_gelu_residual ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) bias(%bias_f16 : memref<16xf16>) residual(%r_f16 : memref<64x16xf16>) outs(%c_f16 : memref<64x16xf16>)
  coalesce.fused_matmul swiglu ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) outs(%g_f16 : memref<64x8xf16>)
  coalesce.fused_matmul geglu ins(%a_f16, %b_f16 : memref<64x32xf16>, memref<32x16xf16>) outs(%g_f16 : memref<64x8xf16>)
  memref.dealloc %a_f16 : memref<64x32xf16>
  memref.dealloc %b_f16 : memref<32x16xf16>
  memref.dealloc %c_f16 : memref<64x16xf16>
  memref.dealloc %bias_f16 : memref<16xf16>
  memref.dealloc %r_f16 : memref<64x16xf16>
  memref.dealloc %g_f16 : memref<64x8xf16>
  coalesce.gelu_tanh ins(%z : memref<64x16xf32>) outs(%z : memref<64x16xf32>)
  coalesce.silu ins(%z : memref<64x16xf32>) outs(%z : memref<64x16xf32>)
  coalesce.add ins(%z, %zr : memref<64x16xf32>, memref<64x16xf32>) outs(%z : memref<64x16xf32>)
  coalesce.glu silu ins(%z : memref<64x16xf32>) outs(%zg : memref<64x8xf32>)
  coalesce.glu gelu ins(%z : memref<64x16xf32>) outs(%zg : memref<64x8xf32>)
  return
}
