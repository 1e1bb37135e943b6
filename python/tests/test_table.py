"""The tuning table from Python: coalesce.load_table, the nearest-shape rule as the CUDA kernel
applies it (coalesce.tuning_choice), COALESCE_TUNING_TABLE, refusals, and a table that
coalesce-report export wrote from the fixture database (under ctest)."""
import os
import subprocess
import sys

import pytest

import coalesce

HEADER = "gpu_model\tsm_count\tdtype\tepilogue\tm\tn\tk\tconfig_name\tmedian_us\n"
ROWS = ("NVIDIA H200\t132\tbf16\tbias_gelu\t1024\t3072\t768\tcfg_m1024\t20.5\n"
        "NVIDIA H200\t132\tbf16\tbias_gelu\t4096\t4096\t4096\tcfg_square\t230.0\n")


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("# coalesce tuning table 1\n" + HEADER + ROWS)
    yield path
    coalesce.load_table("")


def test_load_table_and_the_rule(table):
    assert coalesce.load_table(table) == 2
    choice = lambda *shape: coalesce.tuning_choice("NVIDIA H200", 132, "bf16", "bias_gelu", *shape)
    assert choice(1024, 3072, 768) == ("cfg_m1024", "exact")
    assert choice(17, 3072, 768) == ("cfg_m1024", "nearest_m")
    assert choice(4000, 4000, 4000) == ("cfg_square", "nearest_shape")
    assert coalesce.tuning_choice("NVIDIA H100", 132, "bf16", "bias_gelu", 1024, 3072, 768) == ("", "none")
    assert coalesce.tuning_choice("NVIDIA H200", 132, "f16", "bias_gelu", 1024, 3072, 768) == ("", "none")
    assert coalesce.load_table("") == 0
    assert choice(1024, 3072, 768) == ("", "none")


def test_a_bad_table_is_refused_naming_the_line_and_the_loaded_one_stays(table, tmp_path):
    coalesce.load_table(table)
    bad = tmp_path / "bad.tsv"
    bad.write_text("# coalesce tuning table 1\n" + HEADER + "NVIDIA H200\t132\tbf16\tbias\t0\t1\t1\tc\t1\n")
    with pytest.raises(RuntimeError, match=r"coalesce.load_table: .*bad.tsv:3: m '0' is not an integer of at least 1"):
        coalesce.load_table(bad)
    with pytest.raises(RuntimeError, match=r"missing.tsv: cannot be opened"):
        coalesce.load_table(tmp_path / "missing.tsv")
    assert coalesce.tuning_choice("NVIDIA H200", 132, "bf16", "bias_gelu", 1024, 3072, 768)[0] == "cfg_m1024"


def run_with_env(code, table_path):
    env = dict(os.environ, COALESCE_TUNING_TABLE=str(table_path))
    return subprocess.run([sys.executable, "-c", "import coalesce\n" + code], env=env, capture_output=True,
                          text=True)


def test_the_environment_variable_is_read_at_first_use(table, tmp_path):
    done = run_with_env("print(coalesce.tuning_choice('NVIDIA H200', 132, 'bf16', 'bias_gelu', 1024, 3072, 768))",
                        table)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "('cfg_m1024', 'exact')"
    bad = tmp_path / "bad.tsv"
    bad.write_text("not a table\n")
    done = run_with_env("coalesce.tuning_choice('NVIDIA H200', 132, 'bf16', 'bias_gelu', 1, 1, 1)", bad)
    assert done.returncode != 0
    assert "coalesce: COALESCE_TUNING_TABLE: " + str(bad) + ":1: no column 'gpu_model' in the header" in done.stderr


def test_a_table_exported_from_the_fixture_database(tmp_path):
    report, fixtures = os.environ.get("COALESCE_REPORT"), os.environ.get("COALESCE_FIXTURE_DIR")
    if not report or not fixtures:
        pytest.skip("COALESCE_REPORT and COALESCE_FIXTURE_DIR come from ctest (python_package_test)")
    out = tmp_path / "fixture.tsv"
    subprocess.run([report, "export", "--db", os.path.join(fixtures, "fixture.db"), "--out", str(out)], check=True)
    try:
        assert coalesce.load_table(out) == 2
        config, match = coalesce.tuning_choice("NVIDIA H200", 132, "f32", "bias_gelu", 1024, 1024, 1024)
        assert match == "exact" and config.startswith("simt_f32_") and config.endswith("_bias_gelu")
        assert coalesce.tuning_choice("NVIDIA H200", 132, "f32", "bias_gelu", 2000, 2000, 2000)[1] == "nearest_shape"
    finally:
        coalesce.load_table("")
