"""What no file of the repository may hold: a package index's host name, or a pip option pointing at one.

Set-up scripts use the machine's own pip configuration (its index, mirrors and certificates);
a hard-coded index came back once in ``tests/golden/oracle/setup.sh`` after a merge. The host
names are assembled from pieces here so that this file does not name them either.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_DOT = "."
INDEX_HOSTS = [
    _DOT.join(parts) for parts in (
        ("pypi", "org"), ("pypi", "python", "org"), ("test", "pypi", "org"), ("files", "pythonhosted", "org"),
        ("pythonhosted", "org"), ("download", "pytorch", "org"), ("pypi", "nvidia", "com"),
        ("pypi", "ngc", "nvidia", "com"), ("wheels", "vllm", "ai"), ("anaconda", "org"), ("conda", "anaconda", "org"),
        ("repo", "anaconda", "com"), ("mirrors", "aliyun", "com"), ("pypi", "tuna", "tsinghua", "edu", "cn"),
    )
]
HOST = re.compile("|".join(re.escape(h) for h in INDEX_HOSTS), re.IGNORECASE)
OPTION = re.compile(r"(index[-_]url|find[-_]links|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|PIP_FIND_LINKS)\s*[= ]\s*['\"]?"
                    r"(https?|file)://", re.IGNORECASE)
SIMPLE = re.compile(r"https?://\S+/simple(/|\b)", re.IGNORECASE)


def _files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30)
        names = [n for n in out.stdout.decode().split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        skip = {".git", ".venv", "node_modules", "__pycache__"}
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts)]
    return [ROOT / n for n in names]


def test_no_file_names_a_package_index() -> None:
    """Not one tracked file names a package index host, passes pip an index URL, or links a ``/simple`` index."""
    found = []
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary (images) and files a checkout lacks
        for n, line in enumerate(text.splitlines(), 1):
            if HOST.search(line) or OPTION.search(line) or SIMPLE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:120]}")
    assert not found, "package index named in:\n" + "\n".join(found)


def test_the_check_catches_what_it_is_for() -> None:
    """The patterns see a hard-coded index in the spellings set-up scripts use."""
    host, web = INDEX_HOSTS[0], "https:" + "//"
    for line in (f"pip install --index-url {web}{host}/simple torch", "PIP_EXTRA_INDEX_URL=" + web + "x.y/z",
                 f"--find-links {web}{INDEX_HOSTS[6]}/whl", web + "mirror.example/" + "simple/torch/"):
        assert HOST.search(line) or OPTION.search(line) or SIMPLE.search(line), line
