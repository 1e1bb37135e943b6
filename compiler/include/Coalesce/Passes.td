//===- Passes.td - coalesce passes ------------------------------------------===//
// The compiler's pipeline: fuse-epilogue -> apply-tile-config -> lower-to-library (or CUDA
// emission, coalesce-translate --mlir-to-cuda), and one test-only pass that exposes the tile
// budget to FileCheck.
#ifndef COALESCE_PASSES
#define COALESCE_PASSES

include "mlir/Pass/PassBase.td"

def CoalesceFuseEpilogue : Pass<"coalesce-fuse-epilogue", "func::FuncOp"> {
  let summary = "Fuse a matmul and its epilogue chain into one coalesce.fused_matmul";
  let description = [{
    Folds each unfused op (bias_add, relu, gelu, gelu_tanh, silu, add, glu) into the matmul (or
    fused matmul) that produced its input, one op at a time, when a row of the epilogue registry
    (kernels/core/epilogues.hpp) computes the longer chain: the row reading the chain's operands
    and the op's (a bias, a residual, the gate) with the op's activation. The registry's formula
    applies a bias, then an activation, then the residual (C = R + act(acc + bias)), a gated row
    an activation to the bare product's column pairs, so an op extends a chain only past the
    stage it has reached. Today's rows give

      matmul           + bias_add                -> fused_matmul bias
      fused bias       + relu|gelu|gelu_tanh|silu -> fused_matmul bias_relu|bias_gelu|bias_gelu_tanh|bias_silu
      fused bias_gelu  + add (either input)      -> fused_matmul bias_gelu_residual (the other input is R)
      matmul           + glu silu|gelu           -> fused_matmul swiglu|geglu

    and erases the intermediate buffer with its dealloc. Any other chain (an activation without
    a bias, two activations, two biases, a residual after ReLU or without an activation, a glu
    after a bias or of the tanh GELU) has no kernel epilogue and is left alone.

    A step is legal only when the intermediate is a `memref.alloc` written by a producer in the
    consumer's block that precedes it, and used by nothing but the two of them and its dealloc
    (or, when the consumer writes it in place, ops after the consumer, which read its result);
    when no op between the two may write memory (the product is computed where the consumer
    was, so A, B, the bias and the residual must be unchanged in between); when the consumer's
    output is neither A nor B nor the residual (which the kernel reads while it writes); and when
    the residual is not the intermediate itself. Only the fused ops change: no folding or
    hoisting of unrelated IR.

    Before:
    ```mlir
    %t = memref.alloc() : memref<64x16xf32>
    coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
    coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%u : memref<64x16xf32>)
    coalesce.gelu ins(%u : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
    memref.dealloc %t : memref<64x16xf32>
    ```
    After (with %u an alloc as well):
    ```mlir
    coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
        bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numEpiloguesFused", "epilogues-fused", "Epilogue ops folded into a matmul">,
    Statistic<"numBuffersErased", "buffers-erased", "Intermediate buffers erased">
  ];
}

def CoalesceApplyTileConfig : Pass<"coalesce-apply-tile-config", "ModuleOp"> {
  let summary = "Attach a tile config to every fused matmul that has none";
  let description = [{
    Gives each `coalesce.fused_matmul` without a `tile` attribute a config, from the first
    source that has one:

    1. `config=<name>`: a config name of any family (coalesce::config_name, e.g.
       `simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu`); its dtype and epilogue
       must be the op's, and it must be legal for the op's shape and target, else the pass fails.
    2. `db=<path>` [`device=<name>`]: the fastest config of any family measured for this op's
       M, N, K, dtype and epilogue on that device (a stored name, or a part of exactly one stored
       name, case aside; without device=, this machine's GPU model, else the database's only
       device; anything else is an error listing the stored names), from the results database's `v_ranked` view
       (ok rows only), skipping configs not legal for the op's shape and target ("apply history
       best"). Medians are compared within one timing protocol: the most preferred protocol
       measured answers (schema 8, `protocols.preference`: the shared protocol, a GPU spin
       before each sample, first; docs/tuner.md, "The timing protocol").
    3. The fallback: the first built-in config of the registered families, in registration
       order (Family::builtin_configs; for simt, kernels/simt/builtin.hpp, the configs the
       runtime library ships), that is legal for the op's dtype, shape and target; the last
       simt one copies one float at a time, so every f32 shape has one.

    A lone `coalesce.matmul` is a kernel with the empty epilogue: it becomes a
    `coalesce.fused_matmul none` with the config, so that it can carry one.

    Before:
    ```mlir
    coalesce.fused_matmul bias_gelu ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>)
        bias(%bias : memref<4096xf32>) outs(%c : memref<4096x4096xf32>)
    ```
    After (`config=simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu`):
    ```mlir
    coalesce.fused_matmul bias_gelu ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>)
        bias(%bias : memref<4096xf32>) outs(%c : memref<4096x4096xf32>)
        {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8,
                               tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
    ```
  }];
  let options = [
    Option<"config", "config", "std::string", /*default=*/"\"\"",
           "A config name applied to every fused matmul without a tile">,
    Option<"db", "db", "std::string", /*default=*/"\"\"",
           "A tuning database (SQLite) to take each op's fastest measured config from">,
    Option<"device", "device", "std::string", /*default=*/"\"\"",
           "The device whose measurements `db` is read for: a stored name or a part of exactly one "
           "(e.g. 'H200'); default this machine's GPU, else the database's only device">
  ];
  let statistics = [
    Statistic<"numFromOption", "from-option", "Configs taken from the config option">,
    Statistic<"numFromDatabase", "from-database", "Configs taken from the tuning database">,
    Statistic<"numFallback", "fallback", "Configs taken from the built-in fallback list">
  ];
}

def CoalesceLowerToLibrary : Pass<"coalesce-lower-to-library", "ModuleOp"> {
  let summary = "Lower coalesce ops to calls of the runtime library's extern \"C\" entry points";
  let description = [{
    Each coalesce op becomes a `func.call` to a private function declaration whose name the
    runtime library (compiler/runtime/) defines:

      coalesce.matmul / bias_add / relu / gelu / gelu_tanh / silu / add  -> coalesce_<op>_<dtype>
      coalesce.glu <activation>                 -> coalesce_glu_<activation>_<dtype>
      coalesce.fused_matmul without a tile      -> coalesce_fused_matmul_<dtype>_<epilogue>
      coalesce.fused_matmul with a tile         -> coalesce_fused_matmul_<config name>

    Operands are cast to memrefs of dynamic shape, so one declaration serves every shape.
    Declarations carry `llvm.emit_c_interface`: MLIR's lowering to LLVM then calls
    `_mlir_ciface_<name>` with pointers to memref descriptors, the C ABI the runtime implements.

    Buffers used by coalesce ops live on the GPU: every `memref.alloc` whose users are coalesce
    ops (and its `memref.dealloc`) becomes a call to `coalesce_alloc_<rank>d_<dtype>` (and
    `coalesce_free_<rank>d_<dtype>`). An alloc used both by coalesce ops and by anything else
    has no single home and fails the pass. Every dtype of the runtime's C ABI lowers: f32, tf32
    (f32 memrefs with `#coalesce.math<tensorfloat32>`), bf16 and f16, with every epilogue of the
    registry (the entry's operands are the row's: a bias, then a residual, where it reads them);
    the unfused elementwise ops only in f32, the runtime's elementwise kernels' type (16-bit ones
    fuse into their matmul first), and a glu only of an activation a gated registry row applies
    (silu, gelu: the runtime's act-and-multiply kernels are those rows').

    Before:
    ```mlir
    coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
        bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
    ```
    After:
    ```mlir
    %0 = memref.cast %a : memref<64x32xf32> to memref<?x?xf32>
    %1 = memref.cast %b : memref<32x16xf32> to memref<?x?xf32>
    %2 = memref.cast %bias : memref<16xf32> to memref<?xf32>
    %3 = memref.cast %c : memref<64x16xf32> to memref<?x?xf32>
    call @coalesce_fused_matmul_f32_bias_gelu(%0, %1, %2, %3)
        : (memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
    ...
    func.func private @coalesce_fused_matmul_f32_bias_gelu(memref<?x?xf32>, memref<?x?xf32>,
        memref<?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numCalls", "calls", "Coalesce ops lowered to library calls">,
    Statistic<"numDeviceBuffers", "device-buffers", "Allocations moved to device memory">
  ];
}

def CoalesceTestTileBudget : Pass<"coalesce-test-tile-budget", "ModuleOp"> {
  let summary = "Test only: report each tiled fused matmul's resource budget as remarks";
  let description = [{
    For every `coalesce.fused_matmul` with a `tile`, emits one remark with what the config asks
    of its target (the H200 without a `target` attribute): threads per block, shared-memory
    bytes against the per-block limit, predicted registers per thread, blocks per SM, and grid
    blocks for static shapes, all from coalesce::SimtConfig. The verifier has already refused
    configs that do not fit; this pass shows the margins the tuner prunes on, so they are
    FileCheck-tested. Changes nothing.

    ```mlir
    // remark: simt tile: 256 threads, 50688 of 232448 B shared memory, 120 registers/thread
    //         (predicted, cap 128), 2 blocks/SM, grid 1024 blocks
    ```
  }];
}

#endif // COALESCE_PASSES
