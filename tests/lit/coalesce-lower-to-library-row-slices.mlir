// RUN: coalesce-opt %s --split-input-file --coalesce-lower-to-library | FileCheck %s
// RUN: coalesce-opt %s --split-input-file --coalesce-lower-to-library | mlir-opt --expand-strided-metadata --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// A matmul's A, B and C may be row slices of wider matrices (issue 39's leading dimensions): a
// memref.subview's strided<[s, 1]> layout with any offset. The entry they call declares its
// matrices with the fully dynamic strided layout, whose descriptor carries the row stride (the
// runtime reads strides[0]); the bias stays contiguous. Where a module calls one entry with a row
// slice and with contiguous matrices, both calls take the strided parameters (one declaration).
// MLIR's LLVM lowering needs --expand-strided-metadata before --finalize-memref-to-llvm for the
// subview (the checks of the second pipeline: the stride 72 reaches the descriptor).

// An untiled bf16 matmul on the first 64 columns of a 64 x 72 A.
// CHECK-LABEL: func.func @sliced_a
// CHECK: %[[SA:.*]] = memref.subview
// CHECK: memref.cast %[[SA]] : memref<64x64xbf16, strided<[72, 1]>> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK: call @coalesce_matmul_bf16({{.*}}) : (memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>) -> ()
// CHECK: func.func private @coalesce_matmul_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>)
// LLVM-LABEL: llvm.func @sliced_a
// LLVM: llvm.mlir.constant(72 : index)
// LLVM: llvm.call @_mlir_ciface_coalesce_matmul_bf16
func.func @sliced_a(%a: memref<64x72xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xbf16>) attributes {llvm.emit_c_interface} {
  %sa = memref.subview %a[0, 0] [64, 64] [1, 1] : memref<64x72xbf16> to memref<64x64xbf16, strided<[72, 1]>>
  coalesce.matmul ins(%sa, %b : memref<64x64xbf16, strided<[72, 1]>>, memref<64x64xbf16>) outs(%c : memref<64x64xbf16>)
  return
}

// -----

// A tiled f32 fused matmul writing a column block of a wider C (an offset row slice); its bias
// is contiguous.
// CHECK-LABEL: func.func @tiled_f32_sliced_c
// CHECK: call @coalesce_fused_matmul_simt_f32_{{.*}}_bias_gelu({{.*}}) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
func.func @tiled_f32_sliced_c(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %bias: memref<128xf32>, %c: memref<128x256xf32>) {
  %sc = memref.subview %c[0, 128] [128, 128] [1, 1] : memref<128x256xf32> to memref<128x128xf32, strided<[256, 1], offset: 128>>
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<128x64xf32>, memref<64x128xf32>) bias(%bias : memref<128xf32>) outs(%sc : memref<128x128xf32, strided<[256, 1], offset: 128>>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// One entry, called with contiguous matrices and with a row slice: both calls pass strided
// descriptors to one declaration.
// CHECK-LABEL: func.func @both
// CHECK-COUNT-2: call @coalesce_matmul_f16({{.*}}) : (memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>) -> ()
// CHECK-COUNT-1: func.func private @coalesce_matmul_f16(
// CHECK-NOT: func.func private @coalesce_matmul_f16(
func.func @both(%a: memref<64x64xf16>, %wide: memref<64x80xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf16>, %d: memref<64x64xf16>) {
  coalesce.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf16>)
  %sa = memref.subview %wide[0, 8] [64, 64] [1, 1] : memref<64x80xf16> to memref<64x64xf16, strided<[80, 1], offset: 8>>
  coalesce.matmul ins(%sa, %b : memref<64x64xf16, strided<[80, 1], offset: 8>>, memref<64x64xf16>) outs(%d : memref<64x64xf16>)
  return
}
