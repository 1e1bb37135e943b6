"""The tuning table the CUDA kernel takes its config from (docs/pytorch.md, "The tuning table")."""
import os

import torch


def load_table(path):
    """Reads the table `coalesce-report export` wrote and uses it from the next call on (in place
    of COALESCE_TUNING_TABLE's); returns its number of entries. An empty path unloads it. A table
    that cannot be read raises RuntimeError naming the file and line, and the one before stays."""
    return torch.ops.coalesce.load_tuning_table(os.fspath(path))


def tuning_choice(gpu_model, sm_count, dtype, epilogue, m, n, k):
    """(config name, how it was found) for a problem, by the rule the CUDA kernel applies:
    'exact', 'nearest_m', 'nearest_shape', or ('', 'none') for the runtime's built-in default."""
    return torch.ops.coalesce.tuning_choice(gpu_model, sm_count, dtype, epilogue, m, n, k)
