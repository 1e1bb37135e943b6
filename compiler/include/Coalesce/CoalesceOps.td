//===- CoalesceOps.td - coalesce dialect ops --------------------------------===//
// The unfused ops a program is written in (matmul, bias_add, relu, gelu) and the fused op the
// fusion pass makes of them. All are in destination-passing style on row-major memrefs.
#ifndef COALESCE_OPS
#define COALESCE_OPS

include "Coalesce/CoalesceDialect.td"
include "Coalesce/CoalesceAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

defvar Coalesce_Matrix = MemRefRankOf<[AnyFloat], [2]>;
defvar Coalesce_Vector = MemRefRankOf<[AnyFloat], [1]>;

def Coalesce_MatmulOp : Coalesce_Op<"matmul"> {
  let summary = "C = A x B on row-major memrefs";
  let description = [{
    `coalesce.matmul ins(%a, %b) outs(%c)` writes the product of A (MxK) and B (KxN) into
    C (MxN). C must be a buffer other than A and B. A, B and C share one element type (f32,
    bf16 or f16); `{math = #coalesce.math<tensorfloat32>}` on f32 memrefs asks for TF32 math (the dtype
    tf32), which a kernel family may compute on the tensor cores.

    ```mlir
    coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
                    outs(%c : memref<64x16xf32>)
    ```
  }];
  let arguments = (ins Arg<Coalesce_Matrix, "A", [MemRead]>:$a,
                       Arg<Coalesce_Matrix, "B", [MemRead]>:$b,
                       Arg<Coalesce_Matrix, "C", [MemWrite]>:$c,
                       OptionalAttr<Coalesce_MathKindAttr>:$math);
  let assemblyFormat = [{
    `ins` `(` $a `,` $b `:` type($a) `,` type($b) `)` `outs` `(` $c `:` type($c) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Coalesce_BiasAddOp : Coalesce_Op<"bias_add"> {
  let summary = "Y[m, n] = X[m, n] + bias[n]";
  let description = [{
    Adds a bias vector of N entries to every row of X (MxN). Y may be X itself.

    ```mlir
    coalesce.bias_add ins(%x, %bias : memref<64x16xf32>, memref<16xf32>)
                      outs(%y : memref<64x16xf32>)
    ```
  }];
  let arguments = (ins Arg<Coalesce_Matrix, "X", [MemRead]>:$input,
                       Arg<Coalesce_Vector, "bias", [MemRead]>:$bias,
                       Arg<Coalesce_Matrix, "Y", [MemWrite]>:$output);
  let assemblyFormat = [{
    `ins` `(` $input `,` $bias `:` type($input) `,` type($bias) `)`
    `outs` `(` $output `:` type($output) `)` attr-dict
  }];
  let hasVerifier = 1;
}

class Coalesce_UnaryOp<string mnemonic, string formula, string doc> : Coalesce_Op<mnemonic> {
  let summary = formula;
  let description = doc # [{

    ```mlir
    coalesce.}] # mnemonic # [{ ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
    ```
  }];
  let arguments = (ins Arg<Coalesce_Matrix, "X", [MemRead]>:$input,
                       Arg<Coalesce_Matrix, "Y", [MemWrite]>:$output);
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)` `outs` `(` $output `:` type($output) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Coalesce_ReluOp : Coalesce_UnaryOp<"relu", "Y = max(X, 0) elementwise",
    "The rectifier, elementwise; Y may be X itself.">;

def Coalesce_GeluOp : Coalesce_UnaryOp<"gelu", "Y = X * (1 + erf(X / sqrt 2)) / 2 elementwise",
    "The exact (erf) GELU, PyTorch's default; Y may be X itself. The tanh approximation is a "
    "different function and has no op.">;

def Coalesce_FusedMatmulOp : Coalesce_Op<"fused_matmul"> {
  let summary = "C = epilogue(A x B [+ bias]) in one kernel";
  let description = [{
    A matmul whose elementwise chain is applied to the accumulators before the one store of C,
    so the product never makes a round trip through memory. The epilogue is a name of the
    epilogue registry (kernels/core/epilogues.hpp): `none` (C = A B), `bias` (+ bias[n]),
    `bias_relu` (then max(., 0)), `bias_gelu` (then the exact erf GELU), `bias_gelu_tanh` (the
    tanh GELU), `bias_silu` (SiLU), each with a bias of N entries; `swiglu` and `geglu`, the
    gated pair: B's N columns are interleaved gate and up pairs (N even), C is M x N/2 with
    C[m][j] = act((A B)[m][2j]) * (A B)[m][2j+1] (SiLU, the exact GELU), and there is no bias.
    `bias_gelu_residual` is refused: the op has no residual operand yet.

    The optional `tile` attribute is the kernel's tile config, any attribute implementing the
    tile-config interface (#coalesce.tile of any registered family); the optional `target`
    attribute is the GPU it must fit (the H200, sm_90a, without it). The verifier asks the
    config's family whether it runs on the target and computes the element type, whether the
    config fits the target's limits and, for static shapes, the problem (for simt:
    SimtConfig::check(limits) and check_problem(M, N, K)).

    ```mlir
    coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
        bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
        {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8,
                               tn = 8, stages = 3, vec = 4, group_m = 8,
                               min_blocks = 2>}
    ```
  }];
  let arguments = (ins Coalesce_EpilogueKindAttr:$epilogue,
                       Arg<Coalesce_Matrix, "A", [MemRead]>:$a,
                       Arg<Coalesce_Matrix, "B", [MemRead]>:$b,
                       Arg<Optional<Coalesce_Vector>, "bias", [MemRead]>:$bias,
                       Arg<Coalesce_Matrix, "C", [MemWrite]>:$c,
                       OptionalAttr<Coalesce_TileConfigInterface>:$tile,
                       OptionalAttr<Coalesce_TargetAttr>:$target,
                       OptionalAttr<Coalesce_MathKindAttr>:$math);
  let assemblyFormat = [{
    custom<EpilogueKind>($epilogue) `ins` `(` $a `,` $b `:` type($a) `,` type($b) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $c `:` type($c) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The GPU the tile config must fit: the target's, or the H200 (sm_90a) without one.
    ::coalesce::Target getTargetOrDefault();
    /// The problem the op computes (M, N, K, dtype from the element type, epilogue); extents
    /// are -1 where the shape is dynamic, and the dtype is f32 for element types no family
    /// computes (the verifier refuses those first).
    ::coalesce::Problem getProblem();
  }];
}

#endif // COALESCE_OPS
