//===- CoalesceOps.td - coalesce dialect ops --------------------------------===//
// The unfused ops a program is written in (matmul, bias_add, the activations relu, gelu,
// gelu_tanh and silu, the residual add, the gated glu) and the fused op the fusion pass makes of
// them. All are in destination-passing style on row-major memrefs.
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

// An activation op: Y = act(X) elementwise, with `act` an activation of the epilogue registry
// (kernels/core/epilogues.hpp Activation), which the op names as `kActivation`: fusion looks up
// the registry row that applies it (coalesce-fuse-epilogue) by that value, never by the op.
class Coalesce_ActivationOp<string mnemonic, string activation, string formula, string doc>
    : Coalesce_Op<mnemonic> {
  let summary = formula;
  let description = doc # [{ Y may be X itself.

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
  let extraClassDeclaration = [{
    /// The registry's activation this op applies.
    static constexpr ::coalesce::Activation kActivation = ::coalesce::Activation::}] # activation # [{;
  }];
}

def Coalesce_ReluOp : Coalesce_ActivationOp<"relu", "relu", "Y = max(X, 0) elementwise",
    "The rectifier, elementwise.">;

def Coalesce_GeluOp : Coalesce_ActivationOp<"gelu", "gelu_erf",
    "Y = X * (1 + erf(X / sqrt 2)) / 2 elementwise",
    "The exact (erf) GELU, PyTorch's default `F.gelu(x)`. The tanh approximation is another "
    "function: `coalesce.gelu_tanh`.">;

def Coalesce_GeluTanhOp : Coalesce_ActivationOp<"gelu_tanh", "gelu_tanh",
    "Y = X * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 X^3))) / 2 elementwise",
    "The tanh approximation of GELU, PyTorch's `F.gelu(x, approximate='tanh')`.">;

def Coalesce_SiluOp : Coalesce_ActivationOp<"silu", "silu", "Y = X / (1 + exp(-X)) elementwise",
    "SiLU (swish), PyTorch's `F.silu(x)`.">;

def Coalesce_AddOp : Coalesce_Op<"add"> {
  let summary = "Y = X1 + X2 elementwise (the residual add)";
  let description = [{
    Adds two M x N matrices of one element type, the transformer's residual connection
    `x + mlp(x)`. Y may be either input. coalesce-fuse-epilogue folds it into the fused matmul
    that wrote one input, the other becoming the kernel's M x N residual.

    ```mlir
    coalesce.add ins(%h, %x : memref<64x16xf32>, memref<64x16xf32>) outs(%y : memref<64x16xf32>)
    ```
  }];
  let arguments = (ins Arg<Coalesce_Matrix, "X1", [MemRead]>:$lhs,
                       Arg<Coalesce_Matrix, "X2", [MemRead]>:$rhs,
                       Arg<Coalesce_Matrix, "Y", [MemWrite]>:$output);
  let assemblyFormat = [{
    `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    `outs` `(` $output `:` type($output) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Coalesce_GluOp : Coalesce_Op<"glu"> {
  let summary = "Y[m, j] = act(X[m, 2j]) * X[m, 2j + 1]: the gated MLP's act-and-multiply";
  let description = [{
    The second half of a gated MLP (SwiGLU with `silu`, GeGLU with `gelu`) after the merged
    gate/up GEMM: X is M x N with gate and up columns interleaved (column 2j gate j, 2j + 1 up
    j; N even), Y is M x N/2. The activation is named by its op's mnemonic (`relu`, `gelu`,
    `gelu_tanh`, `silu`). Y must be a buffer other than X. coalesce-fuse-epilogue folds a glu
    into the matmul that wrote X when the registry has its gated epilogue (`swiglu`, `geglu`;
    docs/kernels.md "The gated pair").

    ```mlir
    coalesce.glu silu ins(%h : memref<64x32xf32>) outs(%y : memref<64x16xf32>)
    ```
  }];
  let arguments = (ins Coalesce_ActivationKindAttr:$activation,
                       Arg<Coalesce_Matrix, "X", [MemRead]>:$input,
                       Arg<Coalesce_Matrix, "Y", [MemWrite]>:$output);
  let assemblyFormat = [{
    custom<ActivationKind>($activation) `ins` `(` $input `:` type($input) `)`
    `outs` `(` $output `:` type($output) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Coalesce_FusedMatmulOp : Coalesce_Op<"fused_matmul", [AttrSizedOperandSegments]> {
  let summary = "C = epilogue(A x B [+ bias]) [+ residual] in one kernel";
  let description = [{
    A matmul whose elementwise chain is applied to the accumulators before the one store of C,
    so the product never makes a round trip through memory. The epilogue is a name of the
    epilogue registry (kernels/core/epilogues.hpp): `none` (C = A B), `bias` (+ bias[n]),
    `bias_relu` (then max(., 0)), `bias_gelu` (then the exact erf GELU), `bias_gelu_tanh` (the
    tanh GELU), `bias_silu` (SiLU), each with a bias of N entries; `bias_gelu_residual`, the
    exact GELU plus an M x N `residual` operand of C's shape and type (C = R + gelu(A B + bias),
    C not R); `swiglu` and `geglu`, the gated pair: B's N columns are interleaved gate and up
    pairs (N even), C is M x N/2 with C[m][j] = act((A B)[m][2j]) * (A B)[m][2j+1] (SiLU, the
    exact GELU), and there is no bias. The operands are exactly those the registry row reads.

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
                       Arg<Optional<Coalesce_Matrix>, "residual", [MemRead]>:$residual,
                       Arg<Coalesce_Matrix, "C", [MemWrite]>:$c,
                       OptionalAttr<Coalesce_TileConfigInterface>:$tile,
                       OptionalAttr<Coalesce_TargetAttr>:$target,
                       OptionalAttr<Coalesce_MathKindAttr>:$math);
  let assemblyFormat = [{
    custom<EpilogueKind>($epilogue) `ins` `(` $a `,` $b `:` type($a) `,` type($b) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`residual` `(` $residual^ `:` type($residual) `)`)?
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
