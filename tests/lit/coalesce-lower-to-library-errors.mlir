// RUN: coalesce-opt %s --split-input-file --coalesce-lower-to-library -verify-diagnostics

// A buffer used by coalesce ops lives on the GPU; a host op may not touch it as well.
func.func @device_buffer_read_on_host(%x: memref<64x16xf32>) -> f32 {
  %zero = arith.constant 0 : index
  // expected-error @+1 {{is used by coalesce ops, so it lives on the GPU, and also by 'memref.load', which runs on the host}}
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.relu ins(%x : memref<64x16xf32>) outs(%t : memref<64x16xf32>)
  %v = memref.load %t[%zero, %zero] : memref<64x16xf32>
  return %v : f32
}

// -----

// The runtime's elementwise kernels are f32: a 16-bit one must fuse into its matmul.
func.func @bf16_elementwise(%x: memref<64x16xbf16>, %y: memref<64x16xbf16>) {
  // expected-error @+1 {{computes in bf16; the runtime library's elementwise ops are f32 only: fuse it into its matmul (coalesce-fuse-epilogue)}}
  coalesce.gelu ins(%x : memref<64x16xbf16>) outs(%y : memref<64x16xbf16>)
  return
}

// -----

// The runtime takes row-major contiguous buffers.
func.func @strided(%x: memref<64x16xf32, strided<[32, 1]>>, %y: memref<64x16xf32>) {
  // expected-error @+1 {{operand #0 is not row-major contiguous (layout strided<[32, 1]>); the runtime library takes row-major buffers}}
  coalesce.relu ins(%x : memref<64x16xf32, strided<[32, 1]>>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// An entry point's name is the runtime's: a user function of that name with another type
// cannot be called in its place.
func.func private @coalesce_relu_f32(memref<?x?xf32>) -> ()
func.func @name_taken(%x: memref<64x16xf32>, %y: memref<64x16xf32>) {
  // expected-error @+1 {{could not be lowered to a library call}}
  coalesce.relu ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// The runtime's act-and-multiply kernels are the registry's gated epilogues' (swiglu, geglu): a
// glu of another activation has none.
func.func @glu_without_kernel(%x: memref<64x16xf32>, %y: memref<64x8xf32>) {
  // expected-error @+1 {{applies gelu_tanh to gate pairs, which no gated epilogue of the registry does (the runtime library's glu kernels are those of swiglu and geglu: glu silu, glu gelu)}}
  coalesce.glu gelu_tanh ins(%x : memref<64x16xf32>) outs(%y : memref<64x8xf32>)
  return
}

// -----

// The unfused ops of issue 40 are f32 too: a 16-bit residual add must fuse into its matmul.
func.func @f16_add(%x: memref<64x16xf16>, %r: memref<64x16xf16>, %y: memref<64x16xf16>) {
  // expected-error @+1 {{computes in f16; the runtime library's elementwise ops are f32 only: fuse it into its matmul (coalesce-fuse-epilogue)}}
  coalesce.add ins(%x, %r : memref<64x16xf16>, memref<64x16xf16>) outs(%y : memref<64x16xf16>)
  return
}
