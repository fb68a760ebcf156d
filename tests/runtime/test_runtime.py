"""Real PyTorch proves the rules right: each buggy script really fails (or trains nothing),
and after `gradguard check --fix --unsafe-fixes` the same script runs and trains.

Every script runs in a subprocess with this interpreter, in a temporary directory.
`torch` is imported here on purpose: without it these tests fail instead of skipping.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from gradguard.core.engine import check_source

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLES = ROOT / "examples"
TIMEOUT = 120

NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
FLOAT_BACKWARD = "'float' object has no attribute 'backward'"
SECOND_TIME = "Trying to backward through the graph a second time"
INFERENCE_TENSOR = "Inference tensors cannot be saved for backward"
IN_PLACE = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)
NUMPY_ON_GRAD = "Can't call numpy() on Tensor that requires grad"
BCE_RANGE = "all elements of input should be between 0 and 1"
# Every fixture ends by printing the summed norm of its parameters' gradients.
_GRAD_NORM = re.compile(r"^param-grad-norm (\S+)$", re.M)
# What a fixture that trains nothing prints, and what it prints once fixed.
WEIGHTS_STILL = "weights-moved False"
WEIGHTS_MOVE = "weights-moved True"


@dataclass(frozen=True)
class Buggy:
    """A script with an autograd bug: what GradGuard must report, and how torch reacts."""

    path: Path
    codes: frozenset[str]
    error: str | None  # text on stderr; None: the script runs but misbehaves (see `symptom`)
    symptom: str = WEIGHTS_STILL  # printed by the buggy script when it runs but misbehaves
    healed: str = WEIGHTS_MOVE  # printed instead once the script is fixed
    # With WEIGHTS_STILL: whether gradients reach the printed parameters (the optimizer never
    # moves them) or nothing reaches the model at all.
    gradient_reaches: bool = False
    # A hand-corrected copy, for rules that offer no fix: it must run, train and be clean.
    twin: Path | None = None

    @property
    def id(self) -> str:
        return self.path.relative_to(ROOT).as_posix()


def _case(
    path: Path,
    *codes: str,
    error: str | None,
    symptom: str = WEIGHTS_STILL,
    healed: str = WEIGHTS_MOVE,
    gradient_reaches: bool = False,
    twin: Path | None = None,
) -> Buggy:
    return Buggy(path, frozenset(codes), error, symptom, healed, gradient_reaches, twin)


BUGGY = [
    _case(EXAMPLES / "buggy_rnn_hidden_state.py", "GG201", error=SECOND_TIME),
    _case(EXAMPLES / "buggy_lstm_cell.py", "GG201", error=SECOND_TIME),
    _case(EXAMPLES / "buggy_item_before_backward.py", "GG102", error=FLOAT_BACKWARD),
    _case(EXAMPLES / "buggy_no_grad_loss.py", "GG101", error=NO_GRAD_FN),
    _case(FIXTURES / "gg101_set_grad_enabled.py", "GG101", error=NO_GRAD_FN),
    _case(FIXTURES / "gg101_decorated_loss.py", "GG101", error=NO_GRAD_FN),
    _case(FIXTURES / "gg101_autograd_grad_multi_with.py", "GG101", error=NO_GRAD_FN),
    _case(FIXTURES / "gg102_float_loss.py", "GG102", error=FLOAT_BACKWARD),
    _case(FIXTURES / "gg103_detached_logits_from_loader.py", "GG103", error=NO_GRAD_FN),
    _case(FIXTURES / "gg102_tolist.py", "GG102", error=FLOAT_BACKWARD),
    _case(FIXTURES / "gg102_rewrapped_item.py", "GG102", error=None),
    # Runs, but the forced leaf stops the gradient: the weights never move. The fix removes
    # the forcing, then GG101 / GG103 restore the graph at the real cut.
    _case(FIXTURES / "gg109_forced_no_grad_loss.py", "GG109", error=None),
    _case(FIXTURES / "gg109_detached_requires_grad.py", "GG109", error=None),
    _case(FIXTURES / "gg106_frozen_backbone.py", "GG106", error=INFERENCE_TENSOR),
    # Runs, but `torch.round` sends back zero gradients: the weights never move.
    _case(
        FIXTURES / "gg108_rounded_predictions.py",
        "GG108",
        error=None,
        twin=FIXTURES / "gg108_rounded_predictions_twin.py",
    ),
    # matplotlib converts through Tensor.numpy() (see gradguard.analysis.libraries).
    _case(FIXTURES / "gg502_plot_fitted_line.py", "GG502", error=NUMPY_ON_GRAD),
    # Runs, but keeps every batch's graph alive; the script measures it.
    _case(
        FIXTURES / "gg204_eval_predictions.py",
        "GG204",
        error=None,
        symptom="graph-kept True",
        healed="graph-kept False",
    ),
    _case(FIXTURES / "gg201_lstm_tuple.py", "GG201", error=SECOND_TIME),
    _case(FIXTURES / "gg201_lstm_model_tuple.py", "GG201", error=SECOND_TIME),
    _case(FIXTURES / "gg201_handwritten_rnn.py", "GG201", error=SECOND_TIME),
    _case(FIXTURES / "gg201_trainer_gru_cell.py", "GG201", error=SECOND_TIME),
    _case(FIXTURES / "gg201_retain_graph.py", "GG201", error=IN_PLACE),
    _case(
        FIXTURES / "gg503_gradient_penalty.py",
        "GG503",
        error=None,
        symptom="penalty-trains False",
        healed="penalty-trains True",
    ),
    _case(
        FIXTURES / "gg104_frozen_probe.py",
        "GG104",
        error=NO_GRAD_FN,
        twin=FIXTURES / "gg104_frozen_probe_twin.py",
    ),
    _case(
        FIXTURES / "gg604_new_head_after_optimizer.py", "GG604", error=None, gradient_reaches=True
    ),
    _case(
        FIXTURES / "gg608_deepcopy_trained.py",
        "GG608",
        error=None,
        gradient_reaches=True,
        twin=FIXTURES / "gg608_deepcopy_trained_twin.py",
    ),
    # Runs, but each step applies the sum of 4 micro-batch gradients; the script measures it.
    _case(
        FIXTURES / "gg606_accumulation_summed.py",
        "GG606",
        error=None,
        symptom="gradient-matches False",
        healed="gradient-matches True",
    ),
    # Runs, but trains without dropout from the second epoch on; the script measures it.
    _case(
        FIXTURES / "gg607_validation_leaves_eval.py",
        "GG607",
        error=None,
        symptom="dropout-active-every-epoch False",
        healed="dropout-active-every-epoch True",
    ),
    # Runs, but trains worse than the same model trained on the logits.
    _case(
        FIXTURES / "gg110_softmax_classifier.py",
        "GG110",
        error=None,
        symptom="converges-well False",
        healed="converges-well True",
    ),
    _case(FIXTURES / "gg111_bce_on_logits.py", "GG111", error=BCE_RANGE),
    # Runs, but the gradients differ from the intended loss's.
    _case(
        FIXTURES / "gg111_double_sigmoid.py",
        "GG111",
        error=None,
        symptom="gradient-matches False",
        healed="gradient-matches True",
    ),
    # Runs, but trains far worse than the same model trained on log-probabilities.
    _case(
        FIXTURES / "gg113_softmax_nll_classifier.py",
        "GG113",
        error=None,
        symptom="converges-well False",
        healed="converges-well True",
    ),
    # Runs, but the reentrant checkpoint leaves its block without gradients.
    _case(FIXTURES / "gg112_frozen_features_checkpoint.py", "GG112", error=None),
    _case(FIXTURES / "gg205_multitask_step_between.py", "GG205", error=IN_PLACE),
    _case(FIXTURES / "gg302_sigmoid_gate_edited.py", "GG302", error=IN_PLACE),
    _case(
        FIXTURES / "gg301_weight_edited_in_place.py",
        "GG301",
        error="a leaf Variable that requires grad is being used in an in-place operation",
    ),
    # Runs, but the step finds no gradients: the weights never move.
    _case(FIXTURES / "gg605_module_zero_grad_before_step.py", "GG605", error=None),
    _case(
        FIXTURES / "gg205_gan_stale_output.py",
        "GG205",
        error=IN_PLACE,
        twin=FIXTURES / "gg205_gan_stale_output_twin.py",
    ),
    # Run, but the scaled gradients make the update diverge / vanish (vs. plain float32).
    _case(
        FIXTURES / "gg609_direct_step.py",
        "GG609",
        error=None,
        symptom="matches-fp32 False",
        healed="matches-fp32 True",
    ),
    _case(
        FIXTURES / "gg609_clip_before_unscale.py",
        "GG609",
        error=None,
        symptom="matches-fp32 False",
        healed="matches-fp32 True",
    ),
    # Runs, but clips no gradient: the optimizer exhausted the generator.
    _case(
        FIXTURES / "gg610_clip_exhausted_generator.py",
        "GG610",
        error=None,
        symptom="clipped-every-step False",
        healed="clipped-every-step True",
    ),
    _case(
        FIXTURES / "gg610_count_then_optimizer.py",
        "GG610",
        error="optimizer got an empty parameter list",
    ),
    # All three bugs in one file; torch stops at the first (the no_grad loss).
    _case(
        ROOT / "tests" / "corpus" / "mixed" / "lstm_classifier_zh.py",
        "GG101",
        "GG102",
        "GG201",
        error=NO_GRAD_FN,
    ),
]
# The codes the runtime proofs are about: other rules' findings in these files are the
# corpus test's business.
RULE_CODES = frozenset().union(*(case.codes for case in BUGGY))
CLEAN = [EXAMPLES / "clean_training_loop.py", EXAMPLES / "clean_tbptt_lstm.py"]
TWINS = [case.twin for case in BUGGY if case.twin is not None]


def run_script(script: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a training script with this interpreter (the one that has torch)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        check=False,
    )


@dataclass(frozen=True)
class Fixed:
    """What `gradguard check --fix --unsafe-fixes` did to a copy, and how the copy then ran."""

    original: str
    fixed: str
    cli: subprocess.CompletedProcess[str]
    run: subprocess.CompletedProcess[str] | None  # None when --fix changed nothing


def fix_and_run(script: Path, workdir: Path) -> Fixed:
    """Copy `script` into `workdir`, fix it with the CLI, then run the fixed copy."""
    target = workdir / script.name
    shutil.copyfile(script, target)
    original = target.read_text(encoding="utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "gradguard", "check", "--fix", "--unsafe-fixes", str(target)],
        cwd=workdir,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT,
        check=False,
    )
    fixed = target.read_text(encoding="utf-8")
    run = run_script(target, workdir) if fixed != original else None
    return Fixed(original, fixed, cli, run)


@dataclass(frozen=True)
class Outcomes:
    """Every subprocess result of this module, computed once and in parallel."""

    unfixed: dict[Path, subprocess.CompletedProcess[str]]
    fixed: dict[Path, Fixed]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Outcomes:
    """Run all scripts up front on every core: each one spends most of its time importing torch."""
    workers = max(2, os.cpu_count() or 2)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        unfixed = {
            path: pool.submit(run_script, path, tmp_path_factory.mktemp("run"))
            for path in [case.path for case in BUGGY] + TWINS + CLEAN
        }
        fixed = {
            case.path: pool.submit(fix_and_run, case.path, tmp_path_factory.mktemp("fix"))
            for case in BUGGY
        }
        return Outcomes(
            {path: future.result() for path, future in unfixed.items()},
            {path: future.result() for path, future in fixed.items()},
        )


def grad_norm(stdout: str) -> float | None:
    """The `param-grad-norm` a fixture prints last, if it prints one."""
    found = _GRAD_NORM.findall(stdout)
    return float(found[-1]) if found else None


def codes_in(text: str) -> set[str]:
    """The codes of `RULE_CODES` GradGuard reports for `text`."""
    return {f.code for f in check_source(text).findings} & RULE_CODES


def _explain(result: subprocess.CompletedProcess[str]) -> str:
    return (
        f"exit {result.returncode}\n--- stdout\n{result.stdout[-2000:]}"
        f"\n--- stderr\n{result.stderr[-3000:]}"
    )


def test_torch_is_the_pinned_cpu_build() -> None:
    """The runtime proofs are about this torch; a different one may word errors differently."""
    assert torch.__version__.startswith("2.13.0"), torch.__version__


@pytest.mark.parametrize("case", BUGGY, ids=lambda c: c.id)
def test_buggy_script_fails_the_documented_way(case: Buggy, outcomes: Outcomes) -> None:
    """Unfixed, the script dies with the error it quotes (or trains nothing)."""
    text = case.path.read_text(encoding="utf-8")
    assert codes_in(text) == case.codes
    result = outcomes.unfixed[case.path]
    if case.error is not None:
        assert result.returncode != 0, _explain(result)
        assert case.error in result.stderr, _explain(result)
        assert case.error in " ".join(text.split()), "the script should quote the error it raises"
    else:
        assert result.returncode == 0, _explain(result)
        assert case.symptom in result.stdout, _explain(result)
        if case.symptom == WEIGHTS_STILL:
            norm = grad_norm(result.stdout)
            if case.gradient_reaches:
                assert norm is not None and norm > 0.0, _explain(result)
            else:
                assert norm == 0.0, _explain(result)


@pytest.mark.parametrize("case", [c for c in BUGGY if c.error], ids=lambda c: c.id)
def test_message_quotes_the_error_torch_raised(case: Buggy, outcomes: Outcomes) -> None:
    """The diagnostic names the error the user will actually see, word for word."""
    assert case.error is not None
    assert case.error in outcomes.unfixed[case.path].stderr
    findings = check_source(case.path.read_text(encoding="utf-8")).findings
    messages = [f"{f.code}: {f.message}" for f in findings if f.code in case.codes]
    assert any(case.error in message for message in messages), "\n".join(messages)


@pytest.mark.parametrize("case", BUGGY, ids=lambda c: c.id)
def test_fixed_script_runs_and_trains(case: Buggy, outcomes: Outcomes) -> None:
    """`gradguard check --fix --unsafe-fixes` repairs the file: no finding left, it runs."""
    outcome = outcomes.fixed[case.path]
    if case.twin is not None:
        # No fix is offered for this rule: the file stays as it was, and the hand-corrected
        # twin runs, trains and is clean.
        assert outcome.run is None, f"an unexpected fix was applied\n{outcome.fixed}"
        assert codes_in(case.twin.read_text(encoding="utf-8")) == set()
        twin = outcomes.unfixed[case.twin]
        assert twin.returncode == 0, _explain(twin)
        norm = grad_norm(twin.stdout)
        assert norm is not None and norm > 0.0, _explain(twin)
        return
    if outcome.run is None:
        pytest.fail(f"--fix left the file unchanged\n{_explain(outcome.cli)}", pytrace=False)
    left = codes_in(outcome.fixed)
    # Exit 1 only says other rules still report something; the corpus test pins those.
    if left or outcome.cli.returncode not in (0, 1):
        pytest.fail(
            f"findings remain after --fix: {sorted(left)}\n{_explain(outcome.cli)}"
            f"\n--- fixed file\n{outcome.fixed}",
            pytrace=False,
        )
    result = outcome.run
    if result.returncode != 0:
        pytest.fail(f"the fixed file fails\n{_explain(result)}\n--- fixed file\n{outcome.fixed}")
    norm = grad_norm(result.stdout)
    if norm is not None and not norm > 0.0:
        pytest.fail(f"no gradient reached the model after the fix\n{_explain(result)}")
    if case.error is None and case.healed not in result.stdout:
        pytest.fail(f"the fix did not heal the script ({case.healed!r})\n{_explain(result)}")


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean_example_runs(path: Path, outcomes: Outcomes) -> None:
    """The clean twins run to the end and GradGuard has nothing to say about them."""
    assert codes_in(path.read_text(encoding="utf-8")) == set()
    result = outcomes.unfixed[path]
    assert result.returncode == 0, _explain(result)
