// RUN: coalesce-opt %s -split-input-file -verify-diagnostics
// Extents are carried as int64 and refused above kMaxExtent = 2^20 (the tools' --shape limit;
// CoalesceOps.h says why), never truncated to 32 bits. The accepted side is
// coalesce-apply-tile-config-extents.mlir.

// One past the limit (2^20 + 1) is refused, naming the operand and the limit.
func.func @m_limit_plus_one(%a: memref<1048577x64xf32>, %b: memref<64x64xf32>, %c: memref<1048577x64xf32>) {
  // expected-error @+1 {{expects each extent of A (1048577x64) to be at most 1048576, the kernels' int extent limit, got 1048577}}
  coalesce.matmul ins(%a, %b : memref<1048577x64xf32>, memref<64x64xf32>) outs(%c : memref<1048577x64xf32>)
  return
}

// -----

// 2^31 - 1, the largest int, is refused, not handed to the kernels' (M + BM - 1) arithmetic.
func.func @m_int_max(%a: memref<2147483647x64xf32>, %b: memref<64x64xf32>, %c: memref<2147483647x64xf32>) {
  // expected-error @+1 {{expects each extent of A (2147483647x64) to be at most 1048576, the kernels' int extent limit, got 2147483647}}
  coalesce.matmul ins(%a, %b : memref<2147483647x64xf32>, memref<64x64xf32>) outs(%c : memref<2147483647x64xf32>)
  return
}

// -----

// 2^31 is refused as itself, not read as a negative (dynamic) extent.
func.func @k_two_pow_31(%a: memref<64x2147483648xf32>, %b: memref<2147483648x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{expects each extent of A (64x2147483648) to be at most 1048576, the kernels' int extent limit, got 2147483648}}
  coalesce.matmul ins(%a, %b : memref<64x2147483648xf32>, memref<2147483648x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// 2^31 + 1 in N is refused, naming B.
func.func @n_two_pow_31_plus_one(%a: memref<64x64xf32>, %b: memref<64x2147483649xf32>, %c: memref<64x2147483649xf32>) {
  // expected-error @+1 {{expects each extent of B (64x2147483649) to be at most 1048576, the kernels' int extent limit, got 2147483649}}
  coalesce.matmul ins(%a, %b : memref<64x64xf32>, memref<64x2147483649xf32>) outs(%c : memref<64x2147483649xf32>)
  return
}

// -----

// 2^32 + 64 is refused, not truncated to 64.
func.func @m_two_pow_32_plus_64(%a: memref<4294967360x64xf32>, %b: memref<64x64xf32>, %c: memref<4294967360x64xf32>) {
  // expected-error @+1 {{expects each extent of A (4294967360x64) to be at most 1048576, the kernels' int extent limit, got 4294967360}}
  coalesce.matmul ins(%a, %b : memref<4294967360x64xf32>, memref<64x64xf32>) outs(%c : memref<4294967360x64xf32>)
  return
}

// -----

// 2^32 x 2^32 x 8 is refused for its extent, not as a 0x0x8 problem.
func.func @mn_two_pow_32(%a: memref<4294967296x8xf32>, %b: memref<8x4294967296xf32>, %c: memref<4294967296x4294967296xf32>) {
  // expected-error @+1 {{expects each extent of A (4294967296x8) to be at most 1048576, the kernels' int extent limit, got 4294967296}}
  coalesce.matmul ins(%a, %b : memref<4294967296x8xf32>, memref<8x4294967296xf32>) outs(%c : memref<4294967296x4294967296xf32>)
  return
}

// -----

// Extents within the limit whose product reaches 2^31 elements are the tile's family's matter
// (issue 39): a config whose kernel indexes in 32 bits is refused by that family's rule (the
// accepted side, simt's 64-bit built-in, is coalesce-apply-tile-config-shapes.mlir).
func.func @c_two_pow_31_elements_32_bit_tile(%a: memref<2048x64xf32>, %b: memref<64x1048576xf32>, %c: memref<2048x1048576xf32>) {
  // expected-error @+1 {{tile config does not fit the problem 2048x1048576x64 f32 (shape): a matrix has 2^31 elements or more: the kernel must index it in 64 bits (index_bits = 64)}}
  coalesce.fused_matmul none ins(%a, %b : memref<2048x64xf32>, memref<64x1048576xf32>) outs(%c : memref<2048x1048576xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// The fused op and its bias obey the same limit: a bias of 2^32 + 64 entries is refused by name.
func.func @bias_two_pow_32_plus_64(%a: memref<64x64xf32>, %b: memref<64x4294967360xf32>, %bias: memref<4294967360xf32>, %c: memref<64x4294967360xf32>) {
  // expected-error @+1 {{expects each extent of B (64x4294967360) to be at most 1048576, the kernels' int extent limit, got 4294967360}}
  coalesce.fused_matmul bias ins(%a, %b : memref<64x64xf32>, memref<64x4294967360xf32>) bias(%bias : memref<4294967360xf32>) outs(%c : memref<64x4294967360xf32>)
  return
}

// -----

// An elementwise op obeys the same limit.
func.func @relu_two_pow_31(%x: memref<2147483648x1xf32>, %y: memref<2147483648x1xf32>) {
  // expected-error @+1 {{expects each extent of X (2147483648x1) to be at most 1048576, the kernels' int extent limit, got 2147483648}}
  coalesce.relu ins(%x : memref<2147483648x1xf32>) outs(%y : memref<2147483648x1xf32>)
  return
}

// -----

// A dynamic extent prints as `?` in a message, not as the sentinel -9223372036854775808.
func.func @dynamic_m_in_message(%a: memref<?x32xf32>, %b: memref<32x16xf32>, %c: memref<64x8xf32>) {
  // expected-error @+1 {{expects C to be ?x16, got 64x8}}
  coalesce.matmul ins(%a, %b : memref<?x32xf32>, memref<32x16xf32>) outs(%c : memref<64x8xf32>)
  return
}
