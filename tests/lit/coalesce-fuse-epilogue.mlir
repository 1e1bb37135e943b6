// RUN: coalesce-opt %s --coalesce-fuse-epilogue | FileCheck %s

// matmul -> bias_add -> gelu becomes one bias_gelu kernel; both temporaries and their deallocs go.
// CHECK-LABEL: func.func @bias_gelu_chain
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[C:.*]]: memref<64x16xf32>)
func.func @bias_gelu_chain(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu ins(%[[A]], %[[B]] : memref<64x32xf32>, memref<32x16xf32>) bias(%[[BIAS]] : memref<16xf32>) outs(%[[C]] : memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %u = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
  coalesce.gelu ins(%u : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  memref.dealloc %t : memref<64x16xf32>
  memref.dealloc %u : memref<64x16xf32>
  return
}

// matmul -> bias_add -> relu becomes one bias_relu kernel.
// CHECK-LABEL: func.func @bias_relu_chain
func.func @bias_relu_chain(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_relu ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) bias(%{{.*}} : memref<16xf32>) outs(%{{.*}} : memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %u = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
  coalesce.relu ins(%u : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// matmul -> bias_add becomes a bias kernel; the temporary had no dealloc.
// CHECK-LABEL: func.func @bias_chain
func.func @bias_chain(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias ins({{.*}}) bias({{.*}}) outs({{.*}})
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// An in-place chain fuses into the one buffer, which stays: it holds the result later ops read.
// CHECK-LABEL: func.func @in_place_chain
func.func @in_place_chain(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: %[[T:.*]] = memref.alloc() : memref<64x16xf32>
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu ins({{.*}}) bias({{.*}}) outs(%[[T]] : memref<64x16xf32>)
  // CHECK-NEXT: memref.copy %[[T]], %{{.*}}
  // CHECK-NEXT: memref.dealloc %[[T]]
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.gelu ins(%t : memref<64x16xf32>) outs(%t : memref<64x16xf32>)
  memref.copy %t, %c : memref<64x16xf32> to memref<64x16xf32>
  memref.dealloc %t : memref<64x16xf32>
  return
}

// A fused producer keeps its tile and target when an epilogue op is folded in.
// CHECK-LABEL: func.func @fused_producer_keeps_attributes
func.func @fused_producer_keeps_attributes(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu ins({{.*}}) bias({{.*}}) outs({{.*}}) {target = #coalesce.target<arch = "sm_90", smem_per_block = 232448, regs_per_sm = 65536>, tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4>}
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<256x64xf32>
  coalesce.fused_matmul bias ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%t : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4>,
       target = #coalesce.target<arch = "sm_90", smem_per_block = 232448, regs_per_sm = 65536>}
  coalesce.gelu ins(%t : memref<256x64xf32>) outs(%c : memref<256x64xf32>)
  memref.dealloc %t : memref<256x64xf32>
  return
}

// An op between producer and consumer that only reads memory does not block fusion.
// CHECK-LABEL: func.func @read_in_between
func.func @read_in_between(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) -> f32 {
  // CHECK-NEXT: %{{.*}} = arith.constant 0 : index
  // CHECK-NEXT: %[[V:.*]] = memref.load
  // CHECK-NEXT: coalesce.fused_matmul bias ins({{.*}}) bias({{.*}}) outs({{.*}})
  // CHECK-NEXT: return %[[V]]
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  %zero = arith.constant 0 : index
  %v = memref.load %a[%zero, %zero] : memref<64x32xf32>
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  return %v : f32
}

// Refused: the intermediate has another reader, which needs the product in memory.
// CHECK-LABEL: func.func @intermediate_has_another_user
func.func @intermediate_has_another_user(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>, %d: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.bias_add
  // CHECK-NEXT: coalesce.relu
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.relu ins(%t : memref<64x16xf32>) outs(%d : memref<64x16xf32>)
  return
}

// Refused: the intermediate is a function argument, which the caller may read afterwards.
// CHECK-LABEL: func.func @intermediate_not_local
func.func @intermediate_not_local(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %t: memref<64x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.bias_add
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: the producer is in another block (inside a region) than the consumer.
// CHECK-LABEL: func.func @producer_in_another_block
func.func @producer_in_another_block(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: memref.alloca_scope
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: }
  // CHECK-NEXT: coalesce.bias_add
  %t = memref.alloc() : memref<64x16xf32>
  memref.alloca_scope {
    coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  }
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: the producer does not precede the consumer.
// CHECK-LABEL: func.func @producer_after_consumer
func.func @producer_after_consumer(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.bias_add
  // CHECK-NEXT: coalesce.matmul
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  return
}

// Refused: an op between them may write memory (here A itself), so the product cannot move.
// CHECK-LABEL: func.func @write_in_between
func.func @write_in_between(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>, %v: f32) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: coalesce.bias_add
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  %zero = arith.constant 0 : index
  memref.store %v, %a[%zero, %zero] : memref<64x32xf32>
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: the consumer writes A of the matmul, which the fused kernel would read while writing.
// CHECK-LABEL: func.func @output_is_matmul_input
func.func @output_is_matmul_input(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %bias: memref<64xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.bias_add
  %t = memref.alloc() : memref<64x64xf32>
  coalesce.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%t : memref<64x64xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x64xf32>, memref<64xf32>) outs(%a : memref<64x64xf32>)
  return
}

// Refused: ReLU without a bias has no kernel epilogue.
// CHECK-LABEL: func.func @relu_without_bias
func.func @relu_without_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.relu
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.relu ins(%t : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: GELU without a bias has no kernel epilogue.
// CHECK-LABEL: func.func @gelu_without_bias
func.func @gelu_without_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.gelu
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.gelu ins(%t : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: GELU after ReLU; the bias and ReLU still fuse, the GELU stays a separate op.
// CHECK-LABEL: func.func @gelu_after_relu
func.func @gelu_after_relu(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: %[[V:.*]] = memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias_relu ins({{.*}}) bias({{.*}}) outs(%[[V]] : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.gelu ins(%[[V]] : memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %u = memref.alloc() : memref<64x16xf32>
  %v = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
  coalesce.relu ins(%u : memref<64x16xf32>) outs(%v : memref<64x16xf32>)
  coalesce.gelu ins(%v : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: a second bias has no kernel epilogue; the first one fuses.
// CHECK-LABEL: func.func @second_bias
func.func @second_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: %[[U:.*]] = memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias ins({{.*}}) bias({{.*}}) outs(%[[U]] : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.bias_add ins(%[[U]], %{{.*}} : memref<64x16xf32>, memref<16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %u = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
  coalesce.bias_add ins(%u, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// The math mode travels with the matmul into the fused op (a tf32 problem stays tf32).
// CHECK-LABEL: func.func @keeps_math
func.func @keeps_math(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias ins({{.*}}) bias({{.*}}) outs({{.*}}) {math = #coalesce.math<tensorfloat32>}
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%c : memref<64x16xf32>)
  memref.dealloc %t : memref<64x16xf32>
  return
}

// matmul -> bias_add -> silu becomes one bias_silu kernel.
// CHECK-LABEL: func.func @bias_silu_chain
func.func @bias_silu_chain(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_silu ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) bias(%{{.*}} : memref<16xf32>) outs(%{{.*}} : memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %u = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
  coalesce.silu ins(%u : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  memref.dealloc %t : memref<64x16xf32>
  memref.dealloc %u : memref<64x16xf32>
  return
}

// matmul -> bias_add -> gelu_tanh becomes one bias_gelu_tanh kernel, in bf16 as in f32.
// CHECK-LABEL: func.func @bias_gelu_tanh_chain
func.func @bias_gelu_tanh_chain(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %bias: memref<16xbf16>, %c: memref<64x16xbf16>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu_tanh ins(%{{.*}}, %{{.*}} : memref<64x32xbf16>, memref<32x16xbf16>) bias(%{{.*}} : memref<16xbf16>) outs(%{{.*}} : memref<64x16xbf16>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xbf16>
  coalesce.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%t : memref<64x16xbf16>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xbf16>, memref<16xbf16>) outs(%t : memref<64x16xbf16>)
  coalesce.gelu_tanh ins(%t : memref<64x16xbf16>) outs(%c : memref<64x16xbf16>)
  memref.dealloc %t : memref<64x16xbf16>
  return
}

// matmul -> bias_add -> gelu -> add(residual) becomes one bias_gelu_residual kernel whose
// residual is the add's other input; every temporary goes.
// CHECK-LABEL: func.func @bias_gelu_residual_chain
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[R:.*]]: memref<64x16xf32>, %[[C:.*]]: memref<64x16xf32>)
func.func @bias_gelu_residual_chain(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu_residual ins(%[[A]], %[[B]] : memref<64x32xf32>, memref<32x16xf32>) bias(%[[BIAS]] : memref<16xf32>) residual(%[[R]] : memref<64x16xf32>) outs(%[[C]] : memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %u = memref.alloc() : memref<64x16xf32>
  %v = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
  coalesce.gelu ins(%u : memref<64x16xf32>) outs(%v : memref<64x16xf32>)
  coalesce.add ins(%v, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  memref.dealloc %t : memref<64x16xf32>
  memref.dealloc %u : memref<64x16xf32>
  memref.dealloc %v : memref<64x16xf32>
  return
}

// The residual add is commutative: the product may be its second input (x + mlp(x)).
// CHECK-LABEL: func.func @residual_first
// CHECK-SAME: (%{{.*}}: memref<64x32xf32>, %{{.*}}: memref<32x16xf32>, %{{.*}}: memref<16xf32>, %[[R:.*]]: memref<64x16xf32>, %{{.*}}: memref<64x16xf32>)
func.func @residual_first(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu_residual ins({{.*}}) bias({{.*}}) residual(%[[R]] : memref<64x16xf32>) outs({{.*}})
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.add ins(%r, %t : memref<64x16xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  memref.dealloc %t : memref<64x16xf32>
  return
}

// An in-place residual add (Y = the product's buffer) fuses; the buffer stays for its readers.
// CHECK-LABEL: func.func @residual_in_place
func.func @residual_in_place(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: %[[T:.*]] = memref.alloc() : memref<64x16xf32>
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu_residual ins({{.*}}) bias({{.*}}) residual({{.*}}) outs(%[[T]] : memref<64x16xf32>)
  // CHECK-NEXT: memref.copy %[[T]], %{{.*}}
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.add ins(%t, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%t : memref<64x16xf32>)
  memref.copy %t, %c : memref<64x16xf32> to memref<64x16xf32>
  memref.dealloc %t : memref<64x16xf32>
  return
}

// matmul -> glu silu becomes one swiglu kernel over the same B (gate and up interleaved).
// CHECK-LABEL: func.func @swiglu_chain
// CHECK-SAME: (%[[A:.*]]: memref<64x32xbf16>, %[[B:.*]]: memref<32x16xbf16>, %[[C:.*]]: memref<64x8xbf16>)
func.func @swiglu_chain(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %c: memref<64x8xbf16>) {
  // CHECK-NEXT: coalesce.fused_matmul swiglu ins(%[[A]], %[[B]] : memref<64x32xbf16>, memref<32x16xbf16>) outs(%[[C]] : memref<64x8xbf16>)
  // CHECK-NEXT: return
  %h = memref.alloc() : memref<64x16xbf16>
  coalesce.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%h : memref<64x16xbf16>)
  coalesce.glu silu ins(%h : memref<64x16xbf16>) outs(%c : memref<64x8xbf16>)
  memref.dealloc %h : memref<64x16xbf16>
  return
}

// matmul -> glu gelu (the exact GELU) becomes one geglu kernel, with the matmul's math mode.
// CHECK-LABEL: func.func @geglu_chain
func.func @geglu_chain(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x8xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul geglu ins({{.*}}) outs({{.*}} : memref<64x8xf32>) {math = #coalesce.math<tensorfloat32>}
  // CHECK-NEXT: return
  %h = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%h : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.glu gelu ins(%h : memref<64x16xf32>) outs(%c : memref<64x8xf32>)
  return
}

// Refused: SiLU without a bias has no kernel epilogue (the registry's SiLU row reads a bias).
// CHECK-LABEL: func.func @silu_without_bias
func.func @silu_without_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.silu
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.silu ins(%t : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: a tanh GELU after SiLU (one activation per epilogue); bias and SiLU still fuse.
// CHECK-LABEL: func.func @gelu_tanh_after_silu
func.func @gelu_tanh_after_silu(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: %[[V:.*]] = memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias_silu ins({{.*}}) bias({{.*}}) outs(%[[V]] : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.gelu_tanh ins(%[[V]] : memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %v = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.silu ins(%t : memref<64x16xf32>) outs(%v : memref<64x16xf32>)
  coalesce.gelu_tanh ins(%v : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: a residual after ReLU has no kernel epilogue (the registry's residual row is the
// exact GELU's); the bias and ReLU still fuse, the add stays.
// CHECK-LABEL: func.func @residual_after_relu
func.func @residual_after_relu(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: %[[V:.*]] = memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias_relu ins({{.*}}) bias({{.*}}) outs(%[[V]] : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.add ins(%[[V]], %{{.*}} : memref<64x16xf32>, memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %v = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.relu ins(%t : memref<64x16xf32>) outs(%v : memref<64x16xf32>)
  coalesce.add ins(%v, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: a residual right after the bias (no activation) has no kernel epilogue.
// CHECK-LABEL: func.func @residual_after_bias
func.func @residual_after_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias
  // CHECK-NEXT: coalesce.add
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.fused_matmul bias ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.add ins(%t, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: the product added to itself (R would be the buffer the fusion erases).
// CHECK-LABEL: func.func @residual_is_product
func.func @residual_is_product(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu
  // CHECK-NEXT: coalesce.add
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.add ins(%t, %t : memref<64x16xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: the add writes its residual in place (R = R + product), which the kernel would read
// while writing it.
// CHECK-LABEL: func.func @output_is_residual
func.func @output_is_residual(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu
  // CHECK-NEXT: coalesce.add
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.add ins(%t, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%r : memref<64x16xf32>)
  return
}

// Refused: an op between the two writes the residual, which the fused kernel reads later.
// CHECK-LABEL: func.func @residual_written_in_between
func.func @residual_written_in_between(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>, %v: f32) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: coalesce.add
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%t : memref<64x16xf32>)
  %zero = arith.constant 0 : index
  memref.store %v, %r[%zero, %zero] : memref<64x16xf32>
  coalesce.add ins(%t, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Refused: the residual add's product has another reader.
// CHECK-LABEL: func.func @residual_product_has_another_user
func.func @residual_product_has_another_user(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>, %d: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu
  // CHECK-NEXT: coalesce.add
  // CHECK-NEXT: coalesce.relu
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.add ins(%t, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.relu ins(%t : memref<64x16xf32>) outs(%d : memref<64x16xf32>)
  return
}

// Refused: a glu after a bias has no kernel epilogue (the gated rows read no bias); the bias fuses.
// CHECK-LABEL: func.func @glu_after_bias
func.func @glu_after_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x8xf32>) {
  // CHECK-NEXT: %[[U:.*]] = memref.alloc
  // CHECK-NEXT: coalesce.fused_matmul bias ins({{.*}}) bias({{.*}}) outs(%[[U]] : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.glu silu ins(%[[U]] : memref<64x16xf32>)
  // CHECK-NEXT: return
  %t = memref.alloc() : memref<64x16xf32>
  %u = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
  coalesce.glu silu ins(%u : memref<64x16xf32>) outs(%c : memref<64x8xf32>)
  return
}

// Refused: a glu of the tanh GELU has no gated row in the registry.
// CHECK-LABEL: func.func @glu_without_row
func.func @glu_without_row(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x8xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.glu gelu_tanh
  %h = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%h : memref<64x16xf32>)
  coalesce.glu gelu_tanh ins(%h : memref<64x16xf32>) outs(%c : memref<64x8xf32>)
  return
}

// Refused: the gate/up product has another reader, which needs the M x N product in memory.
// CHECK-LABEL: func.func @glu_product_has_another_user
func.func @glu_product_has_another_user(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x8xf32>, %d: memref<64x16xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.glu silu
  // CHECK-NEXT: coalesce.relu
  %h = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%h : memref<64x16xf32>)
  coalesce.glu silu ins(%h : memref<64x16xf32>) outs(%c : memref<64x8xf32>)
  coalesce.relu ins(%h : memref<64x16xf32>) outs(%d : memref<64x16xf32>)
  return
}

// Refused: the glu writes B of the matmul, which the fused kernel would read while writing.
// CHECK-LABEL: func.func @glu_output_is_matmul_input
func.func @glu_output_is_matmul_input(%a: memref<64x16xf32>, %b: memref<16x32xf32>) {
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: coalesce.matmul
  // CHECK-NEXT: coalesce.glu silu
  %h = memref.alloc() : memref<64x32xf32>
  coalesce.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%h : memref<64x32xf32>)
  coalesce.glu silu ins(%h : memref<64x32xf32>) outs(%a : memref<64x16xf32>)
  return
}
