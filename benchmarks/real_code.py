"""GradGuard on real training code: public repositories at pinned commits, every finding
judged by hand.

    python benchmarks/real_code.py MIRRORS [--write docs/real_code.md]

MIRRORS is a folder holding bare git mirrors named `owner+name/repo` (what the workplace's
`fetch` tool brings; any `git clone --mirror` works). The repositories and commits are
pinned in `REPOSITORIES`; a mirror at another commit is read at the pinned one, and a
missing one is reported, never fetched (no network here; this is a development benchmark,
not part of CI). Python files are read from the commit; notebooks contribute their code
cells (magics dropped). Nothing is run and nothing third-party is written into this
repository.

Every finding must have a verdict in `benchmarks/real_code_judgements.toml`, keyed by
repository, path, line and code: "bug" (a real bug), "harmless" (true, but it does not
matter there) or "false" (GradGuard is wrong). Unjudged findings are listed and make the
script exit 1, as do false ones, so a change that adds findings on real code cannot pass
unnoticed. `--write` renders the judged table (docs/real_code.md).

`--mutants` also measures recall on the same real structure: it injects one common bug at
a time into the real files (drops an `optimizer.zero_grad()`, accumulates `total += loss`
instead of `loss.item()`, drops a `.detach()` or a `with torch.no_grad():`) and counts the
mutants on which GradGuard reports something new. Not every mutant is a bug (a dropped
`no_grad` around code that stores nothing is harmless), so the rates are a floor to compare
versions by, not a recall.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from gradguard.core.engine import check_source
from gradguard.core.findings import Finding
from gradguard.project import session

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
JUDGEMENTS = ROOT / "benchmarks" / "real_code_judgements.toml"

# owner/name -> pinned commit (the snapshot judged)
REPOSITORIES = {
    "pytorch/examples": "77f55b912142e11fcfdf5b530231fb9c52f181e8",
    "eriklindernoren/PyTorch-GAN": "36d3c77e5ff20ebe0aeefd322326a134a279b93e",
    "karpathy/nanoGPT": "3adf61e154c3fe3fca428ad6bc3818b27a3b8291",
    "yunjey/pytorch-tutorial": "0500d3df5a2a8080ccfccbc00aca0eacc21818db",
    "bentrevett/pytorch-seq2seq": "b3cd54c72cd6e4e63f672d334c795b4fe744ef92",
    "higgsfield/RL-Adventure": "0f82b6922e8a1a8515fc4c84c28702e7caa226f1",
    "vwxyzjn/cleanrl": "fe8d8a03c41a7ef5b523e2e354bd01c363e786bb",
    "facebookresearch/detr": "29901c51d7fe8712168b8d0d64351170bc0f83e0",
    "huggingface/pytorch-image-models": "aa4b5850c1543fa488abf260f18390eda46cf85d",
    "MorvanZhou/PyTorch-Tutorial": "dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7",
    "udacity/deep-learning-v2-pytorch": "c9404fc86181fc3f0906b368697268257f348535",
    "AntixK/PyTorch-VAE": "a6896b944c918dd7030e7d795a8c13e5c6345ec7",
    "jcjohnson/pytorch-examples": "0003fcdc606a79951e53bf8f46f8574fa4739f23",
    "kuangliu/pytorch-cifar": "49b7aa97b0c12fe0d4054e670403a16b6b834ddd",
    "karpathy/minGPT": "37baab71b9abea1b76ab957409a1cc2fbfba8a26",
    "sfujim/TD3": "34770ccdcb51df6f6c7d85c1ba7e40d71b940d16",
    "ikostrikov/pytorch-a2c-ppo-acktr-gail": "41332b78dfb50321c29bade65f9d244387f68a60",
    "rasbt/LLMs-from-scratch": "28c65cdfbc3338e2e040016eea4b7fdf556e4d57",
    "sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning": "cc9c7e2f4017938d414178d3781fed8dbe442852",
    "bearpaw/pytorch-classification": "24f1c456f48c78133088c4eefd182ca9e6199b03",
    "d2l-ai/d2l-en": "23d7a5aecceee57d1292c56e90cce307f183bb0a",
    "pytorch/ignite": "de08e799cfb55a6cf4aa778575d6bad725385453",
    "labmlai/annotated_deep_learning_paper_implementations": (
        "e6b3c8a6a2cdae4071bcde1abeaaf9a2bc37bd53"
    ),
    "DLR-RM/stable-baselines3": "e05d2dbe6eda0acd0ef2e316e3e4065677add3eb",
    "openai/spinningup": "038665d62d569055401d91856abb287263096178",
    "pytorch/opacus": "4d0ebc84613d214fbfd37fbfd1390e3747a625ce",
    # Code built on the libraries of `gradguard.analysis.libraries` (Lightning, PEFT on
    # transformers, torchvision models).
    "Lightning-AI/pytorch-lightning": "7f0c3436cd3f6ad3753125672024fc415cbcb414",
    "huggingface/peft": "5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40",
    "jacobgil/pytorch-grad-cam": "084273b3f30b54ad0c64cf8020a4337d979a66e0",
    "bentrevett/pytorch-sentiment-analysis": "329f654b2cfaed22fee432569ebd7a2674584f79",
    # Added 2026-11-28: self-supervised and diffusion training code, GAN and RL collections,
    # visualisation and text classification scripts.
    "facebookresearch/mae": "efb2a8062c206524e35e47d04501ed4f544c0ae8",
    "facebookresearch/dino": "7c446df5b9f45747937fb0d72314eb9f7b66930a",
    "openai/improved-diffusion": "1bc7bbbdc414d83d4abf2ad8cc1446dc36c4e4d5",
    "lucidrains/denoising-diffusion-pytorch": "faed4db28e724735323fa91c70aa9b28a6e1cbac",
    "lucidrains/vit-pytorch": "69d24fe9e3024c0d4b02761123b8583a24ebed1e",
    "Lornatang/SRGAN-PyTorch": "8842030eb433f8578a77328060121fa5a9a3cb43",
    "ShangtongZhang/DeepRL": "c0968b5c046314af09944843cdf06f4100c6bb95",
    "utkuozbulak/pytorch-cnn-visualizations": "ba22fa07c9f31964e6cfa669e80f3461e11c4ebc",
    "Shawn1993/cnn-text-classification-pytorch": "93415f08168a1ae60635320569f6eca0ae3a40bb",
    # Course material and beginners' collections (notebooks mostly).
    "hunkim/PyTorchZeroToAll": "e5a260fac0b4ff1e2ec434fc6f0d962ac97fc289",
    "L1aoXingyu/pytorch-beginner": "a57dd7ea35c9965a41f4963dee62d38884f92a65",
    "dsgiitr/d2l-pytorch": "e84da49a9ea4ba448f4aaf2d18ecd9edafaa2419",
    "GunhoChoi/PyTorch-FastCampus": "1e9ba63e9ccffa28637f9c441d6d5faf35696268",
    "Atcold/NYU-DLSP20": "3049c83260ba05700e2ab9b7ed13cdbe5ddba0fd",
    "yandexdataschool/Practical_RL": "6f7fa8bc521af3d6bb47833c4670f44740f26aa6",
    "chenyuntc/pytorch-book": "688951721d11cd3f92440801e1b68b65ae2e439f",
    "zergtant/pytorch-handbook": "e9a149200971933395c54e516e0e0fbeb62d384a",
    "sthalles/SimCLR": "1848fc934ad844ae630e6c452300433fe99acfd9",
    "omerbsezer/Fast-Pytorch": "6f60db9470dad61a22b0e00ae952e21861cca427",
    "sksq96/pytorch-vae": "14ce22796fe0ee5120f4f1cdb1dbaf515e72559d",
    # Reinforcement learning, self-supervised and vision training code, more tutorials.
    "seungeunrho/minimalRL": "c8efed8481e3cd40e9739cfde220a55522555b57",
    "nikhilbarhate99/PPO-PyTorch": "728cce83d7ab628fe2634eabcdf3239997eb81dd",
    "pranz24/pytorch-soft-actor-critic": "c1805660b3961694be54079a355155a5cad492f5",
    "p-christ/Deep-Reinforcement-Learning-Algorithms-with-PyTorch": (
        "4835bac8557fdacff1735eca004e35ea5a4b7443"
    ),
    "Kaixhin/Rainbow": "1745b184c3dfc03d4ffa3ce2342ced9996b39a60",
    "facebookresearch/simsiam": "a7bc1772896d0dad0806c51f0bb6f3b16d290468",
    "facebookresearch/deit": "7e160fe43f0252d17191b71cbb5826254114ea5b",
    "microsoft/Swin-Transformer": "f82860bfb5225915aca09c3227159ee9e1df874d",
    "openai/guided-diffusion": "22e0df8183507e13a7813f8d38d51b072ca1e67c",
    "xinntao/BasicSR": "d21eac885b6de90a7adef7cc59e937dbdbb200b1",
    "lucidrains/x-transformers": "9252ed7838021ee61e6c5be0930b3a9a88efdf06",
    "SeanNaren/deepspeech.pytorch": "b88a631ef6b96553e16bbaa5bd6a621435bed278",
    "sicara/easy-few-shot-learning": "8023ff49a02a68830c10a21b8eb908cb33bdf1b9",
    "wiseodd/generative-models": "b930d5fa9e2f69adfd4ea8ec759f38f6ce6da4c2",
    "lyhue1991/eat_pytorch_in_20_days": "29a448722cf4993f3a3df4c6416af81c2514af40",
    "graykode/nlp-tutorial": "d05e31ec81d56d70c1db89b99ab07e948f7ebc11",
    "spro/practical-pytorch": "c520c52e68e945d88fff563dba1c028b6ec0197b",
    "prakashpandey9/Text-Classification-Pytorch": "8649eec7a840d55e314b4b992048f3ce966fd05d",
    # Tutorials, detection/segmentation, GANs, distillation, RL, time series.
    "sgrvinod/a-PyTorch-Tutorial-to-Object-Detection": "5d5b75968c3cf1ffd2718bf828a7560b7ee8e8b5",
    "sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution": "c30556bc79a9d43539f2d658722bcb7ff5011ddb",
    "locuslab/TCN": "2f8c2b817050206397458dfd1f5a25ce8a32fe65",
    "AberHu/Knowledge-Distillation-Zoo": "65470c846c1300d555815da26999cbe2b51fc815",
    "haofanwang/Score-CAM": "d312f14faf59840ef050bcf6267ce89d2f72e11e",
    "HobbitLong/SupContrast": "66a8fe53880d6a1084b2e4e0db0a019024d6d41a",
    "jadore801120/attention-is-all-you-need-pytorch": "132907dd272e2cc92e3c10e6c4e783a87ff8893d",
    "milesial/Pytorch-UNet": "21d7850f2af30a9695bbeea75f3136aa538cfc4a",
    "eriklindernoren/PyTorch-YOLOv3": "1d621c8489e22c76ceb93bb2397ac6c8dfb5ceb7",
    "karpathy/nn-zero-to-hero": "73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde",
    "ShusenTang/Dive-into-DL-PyTorch": "09c8bacc08599eb86236551454ba43b82cb91498",
    "caogang/wgan-gp": "ae47a185ed2e938c39cf3eb2f06b32dc1b6a2064",
    "Khrylx/PyTorch-RL": "72069237b4d86bcb9675b899ea94228019a4f003",
    "denisyarats/pytorch_sac": "81c5b536d3a1c5616b2531e446450df412a064fb",
    "openai/CLIP": "d05afc436d78f1c48dc0dbf8e5980a9d471f35f6",
    "yunjey/stargan": "94dd002e93a2863d9b987a937b85925b80f7a19f",
    "clovaai/deep-text-recognition-benchmark": "e2117f2fb882b3c6085030500a260c113be27a63",
    "thuml/Time-Series-Library": "4e938a1767106324dd753b2a44832bf870a0252e",
    # Course notebooks and policy-gradient tutorials.
    "higgsfield/RL-Adventure-2": "277966f7a7a852899a98e989f32b2732646c0704",
    "phlippe/uvadlc_notebooks": "0da8037c7abc32f478ff6142acceb72dbcf088ee",
    "bentrevett/pytorch-image-classification": "33c9cfdb9097bc65b5800c1996f199f0ba520888",
    "bentrevett/pytorch-rl": "7f43f3df8042e687daaad728b07b7e35d4e27415",
    "qfettes/DeepRL-Tutorials": "25fa0bfe83120f9cbe0fb0f0cb2bcc0cd0744097",
    "deeplearningzerotoall/PyTorch": "0e11245870a7d7cffba10726ea2a6dbf456e3e96",
    "mrdbourke/pytorch-deep-learning": "baa27b691617461c173ecf3439793cd8cde74e13",
    "DeepLearningDTU/02456-deep-learning-with-PyTorch": "9f4f39095387a36c51e110d24d5ac4f9d2f7b6ef",
    "yandexdataschool/nlp_course": "a0660e8c44f35ab336a197e5cabfef666a189a7d",
    "keon/3-min-pytorch": "a68ea4dcb73f6003b3e2b60244c35c67c85883ce",
}


@dataclass(frozen=True)
class Found:
    """One finding on one real file."""

    repository: str
    path: str
    line: int
    code: str
    message: str


def git(mirror: Path, *args: str) -> bytes:
    """Output of a git command on a bare mirror (never runs hooks or fsmonitor)."""
    command = ["git", "-c", "core.fsmonitor=", f"--git-dir={mirror}", *args]
    return subprocess.run(command, capture_output=True, check=True).stdout


def sources(mirror: Path, commit: str) -> dict[str, str]:
    """Python text of every .py file and notebook (code cells) at `commit`."""
    # -z: names as they are (without it git quotes non-ASCII names, which `show` cannot find).
    listing = git(mirror, "ls-tree", "-r", "-z", "--name-only", commit)
    names = [name for name in listing.decode("utf-8", errors="surrogateescape").split("\0") if name]
    found: dict[str, str] = {}
    for name in names:
        if not name.endswith((".py", ".ipynb")):
            continue
        try:
            raw = git(mirror, "show", f"{commit}:{name}")
        except subprocess.CalledProcessError:
            continue  # an object the snapshot does not hold (large files)
        text = raw.decode("utf-8", errors="replace")
        found[name] = notebook_code(text) if name.endswith(".ipynb") else text
    return found


def notebook_code(text: str) -> str:
    """The code cells of a notebook, joined, with IPython magics and shell lines dropped."""
    try:
        notebook = json.loads(text)
    except ValueError:
        return ""
    cells = notebook.get("cells") or [
        cell for sheet in notebook.get("worksheets", []) for cell in sheet.get("cells", [])
    ]
    chunks = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source") or cell.get("input") or []
        source = "".join(source) if isinstance(source, list) else source
        lines = [line for line in source.split("\n") if not line.lstrip().startswith(("%", "!"))]
        chunks.append("\n".join(lines))
    return "\n\n".join(chunks) + "\n"


def check_repository(repository: str, mirror: Path, commit: str) -> tuple[list[Found], int]:
    """Findings on one repository and the number of lines checked.

    The repository is checked as a project, as `gradguard check` checks it in a clone: its
    Python files are written to a scratch folder marked as a repository root, so that names
    imported from its other files are known (`gradguard.project`), each file summarised once.
    """
    found: list[Found] = []
    lines = 0
    texts = sources(mirror, commit)
    with tempfile.TemporaryDirectory(prefix="gradguard-real-") as scratch:
        root = Path(scratch)
        (root / ".git").write_text("")  # the project root, as in a clone
        for path, text in texts.items():
            if path.endswith(".py"):
                target = root / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8", errors="surrogatepass")
        session.reset()
        for path, text in sorted(texts.items()):
            lines += text.count("\n")
            with session.checking(root / path):
                result = check_source(text, path=path)
            found.extend(_found(repository, path, result.findings))
        session.reset()
    return found, lines


def _found(repository: str, path: str, findings: Iterable[Finding]) -> Iterator[Found]:
    for finding in findings:
        yield Found(repository, path, finding.range.start.line + 1, finding.code, finding.message)


Mutation = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]
MUTATIONS: dict[str, Mutation] = {
    "drop zero_grad()": (
        re.compile(r"^(\s*)[\w.]+\.zero_grad\(\s*(set_to_none\s*=\s*\w+)?\s*\)\s*$"),
        lambda m: f"{m.group(1)}pass",
    ),
    "total += loss (no .item())": (
        re.compile(r"^(\s*[\w.\[\]']+\s*\+=\s*)(\w+)\.item\(\)\s*$"),
        lambda m: f"{m.group(1)}{m.group(2)}",
    ),
    "drop `with torch.no_grad():`": (
        re.compile(r"^(\s*)with torch\.no_grad\(\):\s*$"),
        lambda m: f"{m.group(1)}if True:",
    ),
    "drop .detach()": (
        re.compile(r"^(.*\w)\.detach\(\)(.*)$"),
        lambda m: f"{m.group(1)}{m.group(2)}",
    ),
}


def mutant_recall(texts: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Per mutation: (mutants with a new finding, mutants checked)."""
    counts = {name: [0, 0] for name in MUTATIONS}
    for path, text in texts.items():
        before = check_source(text, path=path)
        if before.parse_error is not None:
            continue
        known = {(f.code, f.range.start.line) for f in before.findings}
        lines = text.split("\n")
        for name, (pattern, replace) in MUTATIONS.items():
            for index, line in enumerate(lines):
                match = pattern.match(line)
                if match is None:
                    continue
                mutant = "\n".join([*lines[:index], replace(match), *lines[index + 1 :]])
                after = check_source(mutant, path=path)
                if after.parse_error is not None:
                    continue
                counts[name][1] += 1
                if any((f.code, f.range.start.line) not in known for f in after.findings):
                    counts[name][0] += 1
    return {name: (hit, total) for name, (hit, total) in counts.items()}


def load_judgements() -> dict[tuple[str, str, int, str], tuple[str, str]]:
    """(repository, path, line, code) -> (verdict, reason)."""
    data = tomllib.loads(JUDGEMENTS.read_text(encoding="utf-8"))
    return {
        (entry["repository"], entry["path"], entry["line"], entry["code"]): (
            entry["verdict"],
            entry["reason"],
        )
        for entry in data.get("finding", [])
    }


def render(
    findings: list[Found],
    judged: dict[tuple[str, str, int, str], tuple[str, str]],
    lines: int,
    checked: list[str],
) -> str:
    """The judged findings as Markdown: a per-rule table, then every finding."""
    verdicts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    rows = []
    for f in findings:
        verdict, reason = judged.get((f.repository, f.path, f.line, f.code), ("unjudged", ""))
        verdicts[f.code][verdict] += 1
        rows.append(f"| {f.code} | {verdict} | `{f.repository}` `{f.path}:{f.line}` | {reason} |")
    out = [
        "# GradGuard on real training code",
        "",
        "Generated by `python benchmarks/real_code.py MIRRORS --write docs/real_code.md`",
        f"from {len(checked)} public repositories at pinned commits ({lines:,} lines of Python",
        "and notebook code). Every finding is judged by hand in",
        "`benchmarks/real_code_judgements.toml`: *bug* (a real bug), *harmless* (true, but",
        "it does not matter there), *false* (GradGuard is wrong).",
        "",
        "Repositories: " + ", ".join(f"`{name}`" for name in checked) + ".",
        "",
        "| Rule | bug | harmless | false |",
        "|---|---:|---:|---:|",
    ]
    for code in sorted(verdicts):
        counts = verdicts[code]
        out.append(f"| {code} | {counts['bug']} | {counts['harmless']} | {counts['false']} |")
    if not verdicts:
        out.append("| (no findings) | 0 | 0 | 0 |")
    out += ["", "| Rule | Verdict | Where | Why |", "|---|---|---|---|", *rows, ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirrors", type=Path, help="folder of owner+name/repo bare mirrors")
    parser.add_argument("--write", type=Path, help="write the judged table here")
    parser.add_argument("--mutants", action="store_true", help="also measure mutant recall")
    args = parser.parse_args(argv)
    judged = load_judgements()
    findings: list[Found] = []
    lines = 0
    checked: list[str] = []
    texts: dict[str, str] = {}
    for repository, pinned in REPOSITORIES.items():
        mirror = args.mirrors / repository.replace("/", "+") / "repo"
        if (mirror / ".git").is_dir():  # fetched as a clone with a work tree, not bare
            mirror = mirror / ".git"
        if not mirror.is_dir():
            print(f"missing: {repository} (no mirror at {mirror})", file=sys.stderr)
            continue
        commit = pinned or git(mirror, "rev-parse", "HEAD").decode().strip()
        if not pinned:
            print(f"unpinned: {repository} read at {commit}", file=sys.stderr)
        if args.mutants:
            texts.update(
                {f"{repository}/{path}": text for path, text in sources(mirror, commit).items()}
            )
        found, counted = check_repository(repository, mirror, commit)
        findings += found
        lines += counted
        checked.append(repository)
    unjudged = [f for f in findings if (f.repository, f.path, f.line, f.code) not in judged]
    false = [
        f
        for f in findings
        if judged.get((f.repository, f.path, f.line, f.code), ("",))[0] == "false"
    ]
    for f in findings:
        verdict = judged.get((f.repository, f.path, f.line, f.code), ("UNJUDGED", ""))[0]
        print(f"{verdict:9} {f.repository} {f.path}:{f.line}: {f.code} {f.message}")
    print(
        f"{len(findings)} findings in {lines:,} lines of {len(checked)} repositories; "
        f"{len(unjudged)} unjudged, {len(false)} false"
    )
    report = render(findings, judged, lines, checked)
    if args.mutants:
        table = [
            "## Mutants of the same code",
            "",
            "One bug injected at a time (`--mutants`; a floor, see the script's docs):",
            "",
            "| Mutation | flagged | mutants |",
            "|---|---:|---:|",
        ]
        for name, (hit, total) in mutant_recall(texts).items():
            table.append(f"| {name} | {hit} | {total} |")
            print(f"mutants: {name}: {hit}/{total}")
        report += "\n" + "\n".join(table) + "\n"
    if args.write is not None:
        args.write.write_text(report, encoding="utf-8")
    return 1 if unjudged or false else 0


if __name__ == "__main__":
    sys.exit(main())
