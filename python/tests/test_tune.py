"""coalesce.tune: the shapes a model runs, the workload file and commands it gives coalesce-tune
and coalesce-report (dry run), and a full run through stand-in tools that load the table."""
import stat
import subprocess

import pytest
import torch
from torch import nn

import coalesce


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16), nn.Linear(16, 16, bias=False))


def test_linear_shapes_of_a_plain_and_a_fused_model():
    m = model()
    x = torch.randn(2, 5, 16)
    assert coalesce.linear_shapes(m, (x,)) == [
        coalesce.LinearShape(10, 16, 16, "f32", "none"), coalesce.LinearShape(10, 16, 64, "f32", "bias"),
        coalesce.LinearShape(10, 64, 16, "f32", "bias")]
    coalesce.fuse(m)
    shapes = coalesce.linear_shapes(m.to(torch.bfloat16), (x.to(torch.bfloat16),))
    assert coalesce.LinearShape(10, 64, 16, "bf16", "bias_gelu") in shapes


def test_repeated_layers_count():
    m = nn.Sequential(*[nn.Linear(8, 8) for _ in range(3)])
    assert coalesce.linear_shapes(m, (torch.randn(4, 8),)) == [coalesce.LinearShape(4, 8, 8, "f32", "bias", 3)]


def test_dry_run_gives_the_commands_and_the_workload_file(tmp_path):
    shapes, commands = coalesce.tune(model(), (torch.randn(3, 16),), db=str(tmp_path / "x.db"), tune_bin="T",
                                     report_bin="R", sweep_args=["--strategy", "model"], dry_run=True)
    assert len(shapes) == 3
    sweep, export = commands
    assert sweep[:3] == ["T", "sweep", "--shapes-file"]
    assert sweep[4:] == ["--db", str(tmp_path / "x.db"), "--strategy", "model"]
    assert export == ["R", "export", "--db", str(tmp_path / "x.db"), "--out", str(tmp_path / "coalesce-tuning.tsv")]
    with open(sweep[3]) as f:
        lines = [l.strip() for l in f if not l.startswith("#")]
    assert lines == ["3,16,16,f32,none,linear0,1", "3,16,64,f32,bias,linear1,1", "3,64,16,f32,bias,linear2,1"]


def tool(path, body):
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_tune_runs_the_tools_and_loads_the_table(tmp_path):
    log = tmp_path / "log"
    tune_bin = tool(tmp_path / "tune", f'echo "tune $*" >> {log}\n')
    report_bin = tool(tmp_path / "report", f'echo "report $*" >> {log}\n'
                      'printf "# coalesce tuning table 1\\ngpu_model\\tsm_count\\tdtype\\tepilogue\\tm\\tn\\tk\\t'
                      'config_name\\tmedian_us\\nG\\t1\\tf32\\tbias\\t3\\t64\\t16\\tcfg\\t1\\n" > "$5"\n')
    try:
        coalesce.tune(model(), (torch.randn(3, 16),), db=str(tmp_path / "x.db"), tune_bin=tune_bin,
                      report_bin=report_bin)
        assert [l.split()[:2] for l in log.read_text().splitlines()] == [["tune", "sweep"], ["report", "export"]]
        assert coalesce.tuning_choice("G", 1, "f32", "bias", 3, 64, 16) == ("cfg", "exact")
    finally:
        coalesce.load_table("")


def test_a_failing_tool_stops_tune(tmp_path):
    fail = tool(tmp_path / "fail", "echo 'coalesce-tune: no CUDA device' >&2; exit 3\n")
    with pytest.raises(subprocess.CalledProcessError) as e:
        coalesce.tune(model(), (torch.randn(3, 16),), db=str(tmp_path / "x.db"), tune_bin=fail, report_bin=fail)
    assert e.value.returncode == 3
