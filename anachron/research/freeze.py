"""The fail-closed freeze gate of a pre-registered study.

A study directory holds a contract, ``FREEZE_CONTRACT.json``, that lists the
files the study is frozen on (protocol, acceptance matrix, analysis code,
source list), each with the SHA-256 of its bytes as last sealed.  The gate
passes only when

1. every listed file exists and its SHA-256 equals the sealed value, and
2. every row of the acceptance matrix is met: its status cell is exactly
   ``MET`` and its evidence cell is not a placeholder (:func:`is_placeholder`).

Anything else fails: a missing hash, a missing file, a matrix with no rows.
Hashes are taken over the raw bytes of each file, never over decoded text, so
a change of line endings (LF to CRLF) or of encoding is a change.

The pieces that decide (:func:`parse_matrix`, :func:`parse_contract`,
:func:`evaluate`) do no I/O; :func:`check` and :func:`seal` read the files and
hand them over.  The contract format and the matrix rules are documented in
docs/freeze.md.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from anachron.core.errors import AnachronError
from anachron.core.jsonio import dump_json, parse_json
from anachron.core.atomic import write_atomic

__all__ = [
    "CONTRACT_NAME",
    "Contract",
    "FreezeNotPassed",
    "FreezeReport",
    "FrozenFile",
    "MatrixRow",
    "SealReport",
    "check",
    "code_closure",
    "evaluate",
    "is_placeholder",
    "load_contract",
    "parse_contract",
    "parse_matrix",
    "require_passed",
    "seal",
    "sha256_hex",
    "verify_code",
]

CONTRACT_NAME = "FREEZE_CONTRACT.json"
FORMAT = "anachron-freeze/1"
# How many files of each role a contract lists: (at least, at most or None).
ROLES = {"protocol": (1, None), "matrix": (1, 1), "analysis": (1, None), "sources": (1, 1)}
MATRIX_COLUMNS = ("ID", "Condition", "Status", "Evidence")
STATUSES = ("MET", "UNMET")

_CONTRACT_KEYS = {"format", "study", "description", "root", "files", "sealed_complete"}
_FILE_KEYS = {"role", "sha256"}
_HEX64 = re.compile(r"[0-9a-f]{64}")
_ROW_ID = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
_DELIMITER_CELL = re.compile(r":?-+:?")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
# Evidence that merely promises evidence.  Whole-cell values, and words that
# mark the cell as unfinished wherever the cell starts with them.
_PLACEHOLDER_CELLS = frozenset({"none", "none yet", "not yet", "n/a", "na", "nil", "null", "unknown", "evidence"})
_TRIM = " \t*_`'\"()[].,;:!?"  # whitespace, Markdown marks, punctuation at either end
_PLACEHOLDER_WORDS = frozenset({"tbd", "tba", "todo", "fixme", "xxx", "pending", "placeholder"})


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of *data* as 64 lowercase hex digits."""
    return hashlib.sha256(data).hexdigest()


# ----------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class MatrixRow:
    """One condition of the acceptance matrix, with its line in the file."""

    id: str
    condition: str
    status: str
    evidence: str
    line: int

    @property
    def met(self) -> bool:
        """Status exactly ``MET`` and evidence that is not a placeholder."""
        return self.status == "MET" and not is_placeholder(self.evidence)

    @property
    def why_unmet(self) -> str | None:
        """``None`` for a met row, else the reason in a few words."""
        if self.status != "MET":
            return f"status {self.status}"
        if is_placeholder(self.evidence):
            return "status MET but the evidence is a placeholder"
        return None


def is_placeholder(evidence: str) -> bool:
    """Whether an evidence cell says nothing checkable.

    After trimming whitespace, the Markdown marks ``*``, ``_`` and the
    backtick, quotes, brackets and the punctuation ``.,;:!?`` at either end,
    a cell is a placeholder when it is empty, has no letter or digit
    (``-``, ``—``, ``...``), is one of *none*, *none yet*, *not yet*, *n/a*,
    *na*, *nil*, *null*, *unknown*, *evidence*, or begins with one of the
    words *TBD*, *TBA*, *TODO*, *FIXME*, *XXX*, *pending*, *placeholder*.
    Case does not matter.  Everything else counts as evidence: the gate cannot
    judge whether evidence is true, only that some was written.
    """
    text = evidence.strip().strip(_TRIM).casefold()
    if not any(ch.isalnum() for ch in text):
        return True
    if text in _PLACEHOLDER_CELLS:
        return True
    first = re.match(r"[a-z]+", text)
    return first is not None and first.group() in _PLACEHOLDER_WORDS


def _split_cells(line: str, where: str) -> list[str]:
    body = line.strip()
    if len(body) < 2 or not body.endswith("|") or body.endswith("\\|"):
        raise AnachronError(f"{where}: a table row must start and end with '|'")
    return [cell.strip().replace("\\|", "|") for cell in _UNESCAPED_PIPE.split(body[1:-1])]


def _table_blocks(text: str) -> list[list[tuple[int, str]]]:
    """Runs of consecutive lines starting with ``|``, outside fenced code."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    fence = None
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        marker = stripped[:3]
        if fence is None and marker in ("```", "~~~"):
            fence = marker
        elif fence is not None:
            if marker == fence:
                fence = None
        elif stripped.startswith("|"):
            current.append((number, line))
            continue
        if current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def parse_matrix(text: str, where: str) -> tuple[MatrixRow, ...]:
    """Parse an acceptance matrix: exactly one Markdown table.

    The header is exactly ``| ID | Condition | Status | Evidence |``, then a
    delimiter row, then at least one row.  Each row has four cells; the id is
    a letter followed by letters, digits, ``.``, ``_`` or ``-`` and is unique;
    the condition is not empty; the status is exactly ``MET`` or ``UNMET``
    (``met``, ``**MET**`` or ``Met`` are errors, not a pass).  ``\\|`` is a
    literal pipe inside a cell.  Text outside the table, and tables inside
    fenced code blocks, are ignored.  Raises :class:`AnachronError` naming
    *where* and the line.
    """
    blocks = _table_blocks(text)
    if not blocks:
        raise AnachronError(f"{where}: no table found; the matrix is one table | ID | Condition | Status | Evidence |")
    if len(blocks) > 1:
        raise AnachronError(f"{where}:{blocks[1][0][0]}: a second table; the matrix must hold exactly one")
    block = blocks[0]
    header_no, header = block[0]
    if tuple(_split_cells(header, f"{where}:{header_no}")) != MATRIX_COLUMNS:
        raise AnachronError(f"{where}:{header_no}: the header must be | {' | '.join(MATRIX_COLUMNS)} |")
    if len(block) < 2:
        raise AnachronError(f"{where}:{header_no}: the header is not followed by a delimiter row")
    delim_no, delimiter = block[1]
    cells = _split_cells(delimiter, f"{where}:{delim_no}")
    if len(cells) != len(MATRIX_COLUMNS) or not all(_DELIMITER_CELL.fullmatch(c) for c in cells):
        raise AnachronError(f"{where}:{delim_no}: expected the delimiter row | --- | --- | --- | --- |")
    if len(block) < 3:
        raise AnachronError(f"{where}:{delim_no}: the matrix has no rows")
    rows: list[MatrixRow] = []
    first_line: dict[str, int] = {}
    for number, line in block[2:]:
        here = f"{where}:{number}"
        cells = _split_cells(line, here)
        if len(cells) != len(MATRIX_COLUMNS):
            raise AnachronError(f"{here}: expected {len(MATRIX_COLUMNS)} cells, found {len(cells)}")
        row_id, condition, status, evidence = cells
        if not _ROW_ID.fullmatch(row_id):
            raise AnachronError(f"{here}: row id {row_id!r} must be a letter followed by letters, digits, '.', '_' or '-'")
        if row_id in first_line:
            raise AnachronError(f"{here}: duplicate row id {row_id!r} (first on line {first_line[row_id]})")
        if not condition:
            raise AnachronError(f"{here}: row {row_id} has an empty condition")
        if status not in STATUSES:
            raise AnachronError(f"{here}: row {row_id}: unknown status {status!r} (expected MET or UNMET)")
        first_line[row_id] = number
        rows.append(MatrixRow(row_id, condition, status, evidence, number))
    return tuple(rows)


# --------------------------------------------------------------- the contract


@dataclass(frozen=True)
class FrozenFile:
    """A file under the contract: path relative to the root, role, sealed hash."""

    path: str
    role: str
    sha256: str | None


@dataclass(frozen=True)
class Contract:
    """A parsed ``FREEZE_CONTRACT.json``; files sorted by path."""

    study: str
    root: str
    files: tuple[FrozenFile, ...]
    sealed_complete: bool = False
    description: str | None = None

    @property
    def matrix(self) -> FrozenFile:
        return self.role("matrix")[0]

    def role(self, role: str) -> tuple[FrozenFile, ...]:
        return tuple(f for f in self.files if f.role == role)

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "format": FORMAT,
            "study": self.study,
            "root": self.root,
            "files": {f.path: {"role": f.role, "sha256": f.sha256} for f in self.files},
            "sealed_complete": self.sealed_complete,
        }
        if self.description is not None:
            obj["description"] = self.description
        return obj


def _check_relative(value: Any, where: str, *, allow_up: bool) -> str:
    if not isinstance(value, str) or not value:
        raise AnachronError(f"{where}: expected a non-empty relative path")
    parts = value.split("/")
    bad = (
        "\\" in value
        or "\0" in value
        or value.startswith("/")
        or re.match(r"[A-Za-z]:", value) is not None
        or any(p in ("", ".") for p in parts)
        or (not allow_up and ".." in parts)
    )
    if bad:
        rule = "'/'-separated, relative" + ("" if allow_up else ", without '..'")
        raise AnachronError(f"{where}: path {value!r} must be {rule}, with no empty or '.' part")
    return value


def parse_contract(obj: Any, where: str) -> Contract:
    """Validate a contract already parsed from JSON (see docs/freeze.md)."""
    if not isinstance(obj, dict):
        raise AnachronError(f"{where}: expected a JSON object")
    unknown = sorted(set(obj) - _CONTRACT_KEYS)
    if unknown:
        raise AnachronError(f"{where}: unknown key {unknown[0]!r}")
    for key in ("format", "study", "root", "files"):
        if key not in obj:
            raise AnachronError(f"{where}: missing key {key!r}")
    if obj["format"] != FORMAT:
        raise AnachronError(f"{where}: format must be {FORMAT!r}, found {obj['format']!r}")
    study = obj["study"]
    if not isinstance(study, str) or not study.strip():
        raise AnachronError(f"{where}: study must be a non-empty string")
    description = obj.get("description")
    if description is not None and not isinstance(description, str):
        raise AnachronError(f"{where}: description must be a string")
    sealed_complete = obj.get("sealed_complete", False)
    if not isinstance(sealed_complete, bool):
        raise AnachronError(f"{where}: sealed_complete must be true or false")
    root = _check_relative(obj["root"], f"{where}: root", allow_up=True)
    entries = obj["files"]
    if not isinstance(entries, dict) or not entries:
        raise AnachronError(f"{where}: files must be a non-empty object of path -> {{role, sha256}}")
    files = []
    for path in sorted(entries):
        here = f"{where}: files[{path!r}]"
        _check_relative(path, here, allow_up=False)
        entry = entries[path]
        if not isinstance(entry, dict):
            raise AnachronError(f"{here}: expected an object with role and sha256")
        unknown = sorted(set(entry) - _FILE_KEYS)
        if unknown:
            raise AnachronError(f"{here}: unknown key {unknown[0]!r}")
        role = entry.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise AnachronError(f"{here}: role {role!r} is not one of {', '.join(ROLES)}")
        digest = entry.get("sha256")
        if digest is not None and (not isinstance(digest, str) or not _HEX64.fullmatch(digest)):
            raise AnachronError(f"{here}: sha256 must be 64 lowercase hex digits or null")
        files.append(FrozenFile(path, role, digest))
    for role, (least, most) in ROLES.items():
        count = sum(f.role == role for f in files)
        if count < least or (most is not None and count > most):
            wanted = f"exactly {least}" if least == most else f"at least {least}"
            raise AnachronError(f"{where}: the contract lists {count} {role} file(s), expected {wanted}")
    return Contract(study.strip(), root, tuple(files), sealed_complete, description)


# ------------------------------------------------------------------ deciding


@dataclass(frozen=True)
class FreezeReport:
    """The outcome of :func:`check`.

    ``files`` maps each contract path to its finding: ``"ok"``, ``"changed"``,
    ``"missing"`` or ``"unsealed"`` (no hash recorded).  ``actual`` maps it to
    the current SHA-256 (``None`` when missing).  ``rows`` is the matrix as it
    is now (empty when the matrix file is missing).  ``contract_sha256`` is
    the hash of the contract file as read, so a result can name its freeze.
    """

    directory: str
    contract: Contract
    root: str
    files: Mapping[str, str]
    actual: Mapping[str, str | None]
    rows: tuple[MatrixRow, ...]
    contract_sha256: str | None = None

    @property
    def unmet(self) -> tuple[MatrixRow, ...]:
        return tuple(r for r in self.rows if not r.met)

    @property
    def file_problems(self) -> tuple[str, ...]:
        return tuple(path for path, finding in self.files.items() if finding != "ok")

    @property
    def passed(self) -> bool:
        return bool(self.rows) and not self.unmet and not self.file_problems

    def problems(self) -> list[str]:
        """One line per changed, missing or unsealed file, then per unmet row."""
        lines = []
        sealed = {f.path: f.sha256 for f in self.contract.files}
        for path in self.file_problems:
            finding = self.files[path]
            if finding == "changed":
                lines.append(f"changed: {path}: sha256 {self.actual[path]} (sealed {sealed[path]})")
            else:
                lines.append(f"{finding}: {path}")
        matrix = self.contract.matrix.path
        for row in self.unmet:
            lines.append(f"unmet: {row.id}: {row.condition} ({matrix}:{row.line}; {row.why_unmet})")
        return lines

    def summary(self) -> str:
        if self.passed:
            return (
                f"freeze check passed: {self.directory}: all {len(self.rows)} rows met, "
                f"{len(self.files)} files match their sealed hashes"
            )
        return (
            f"freeze check FAILED: {self.directory}: {len(self.unmet)} of {len(self.rows)} rows unmet, "
            f"{len(self.file_problems)} of {len(self.files)} files changed, missing or unsealed"
        )


def evaluate(
    contract: Contract,
    actual: Mapping[str, str | None],
    rows: Sequence[MatrixRow],
    *,
    directory: str = ".",
    root: str = ".",
    contract_sha256: str | None = None,
) -> FreezeReport:
    """Decide the gate from current hashes (``None`` = file missing) and matrix rows."""
    files = {}
    for f in contract.files:
        now = actual.get(f.path)
        if now is None:
            files[f.path] = "missing"
        elif f.sha256 is None:
            files[f.path] = "unsealed"
        else:
            files[f.path] = "ok" if now == f.sha256 else "changed"
    return FreezeReport(directory, contract, root, files, dict(actual), tuple(rows), contract_sha256)


class FreezeNotPassed(AnachronError):
    """The gate is closed.  ``problems`` holds one line per reason."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


# ---------------------------------------------------------------- file access


def load_contract(directory: str | os.PathLike[str]) -> tuple[Contract, Path, str]:
    """Read ``DIR/FREEZE_CONTRACT.json``: the contract, its resolved root, its own SHA-256."""
    directory = Path(directory)
    if not directory.is_dir():
        raise AnachronError(f"{directory}: not a directory (expected a study directory holding {CONTRACT_NAME})")
    path = directory / CONTRACT_NAME
    data = _read_bytes(path)
    if data is None:
        raise AnachronError(f"{path}: no such file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AnachronError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    contract = parse_contract(parse_json(text, str(path)), str(path))
    root = Path(os.path.normpath(directory / contract.root))
    if not root.is_dir():
        raise AnachronError(f"{path}: root {contract.root!r} is not a directory ({root})")
    return contract, root, sha256_hex(data)


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise AnachronError(f"{path}: is a directory, expected a file") from None
    except OSError as exc:
        raise AnachronError(f"{path}: cannot read: {exc.strerror}") from None


def _matrix_rows(data: bytes, path: Path) -> tuple[MatrixRow, ...]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AnachronError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    # Parsing tolerates CRLF; the hash, taken over raw bytes, does not.
    return parse_matrix(text.replace("\r\n", "\n"), str(path))


def check(directory: str | os.PathLike[str]) -> FreezeReport:
    """Recompute every hash, read the matrix, and decide.  Never writes."""
    contract, root, contract_sha256 = load_contract(directory)
    actual: dict[str, str | None] = {}
    rows: tuple[MatrixRow, ...] = ()
    for f in contract.files:
        data = _read_bytes(root / f.path)
        actual[f.path] = None if data is None else sha256_hex(data)
        if f.role == "matrix" and data is not None:
            rows = _matrix_rows(data, root / f.path)
    return evaluate(contract, actual, rows, directory=str(directory), root=str(root), contract_sha256=contract_sha256)


def require_passed(directory: str | os.PathLike[str]) -> FreezeReport:
    """:func:`check`, raising :class:`FreezeNotPassed` unless the gate passes."""
    report = check(directory)
    if not report.passed:
        raise FreezeNotPassed(report.summary(), report.problems())
    return report


@dataclass(frozen=True)
class SealReport:
    """What :func:`seal` recorded: per path, the new and the previous hash."""

    directory: str
    sealed: Mapping[str, str]
    previous: Mapping[str, str | None]
    rows: tuple[MatrixRow, ...]
    complete: bool

    def lines(self) -> list[str]:
        out = []
        for path, digest in self.sealed.items():
            before = self.previous[path]
            if before is None:
                state = "new"
            elif before == digest:
                state = "unchanged"
            else:
                state = f"CHANGED, was {before}"
            out.append(f"sealed: {path}: sha256 {digest} ({state})")
        met = sum(r.met for r in self.rows)
        out.append(
            f"sealed {self.directory}: {len(self.sealed)} files, {met} of {len(self.rows)} rows met"
            + ("; the freeze is complete and final" if self.complete else "")
        )
        return out


def seal(directory: str | os.PathLike[str]) -> SealReport:
    """Record the current SHA-256 of every listed file in the contract.

    Refuses (raises :class:`AnachronError`, writes nothing) when a listed
    file is missing, when the matrix does not parse, and when the contract was
    last sealed with every row met and a file has changed since: a complete
    freeze is final, and the tool will not bless a change made after it.
    Otherwise the contract is rewritten atomically; ``sealed_complete``
    records whether every row was met at this seal.
    """
    contract, root, _ = load_contract(directory)
    contract_path = Path(directory) / CONTRACT_NAME
    data: dict[str, bytes] = {}
    for f in contract.files:
        content = _read_bytes(root / f.path)
        if content is None:
            raise AnachronError(f"{root / f.path}: no such file; cannot seal a contract that lists it")
        data[f.path] = content
    rows = _matrix_rows(data[contract.matrix.path], root / contract.matrix.path)
    digests = {path: sha256_hex(content) for path, content in data.items()}
    changed = [f.path for f in contract.files if f.sha256 is not None and f.sha256 != digests[f.path]]
    if contract.sealed_complete and changed:
        raise AnachronError(
            f"{contract_path}: was sealed with every row met, so the freeze is final; "
            f"refusing to re-seal changed file(s): {', '.join(changed)}"
        )
    complete = all(r.met for r in rows)
    new = Contract(
        contract.study,
        contract.root,
        tuple(FrozenFile(f.path, f.role, digests[f.path]) for f in contract.files),
        complete,
        contract.description,
    )
    write_atomic(contract_path, dump_json(new.to_json()))
    previous = {f.path: f.sha256 for f in contract.files}
    return SealReport(str(directory), digests, previous, rows, complete)


# ------------------------------------------------------------ the code itself


def _import_statements(tree: ast.Module):
    """Every import statement, at any depth, visiting statements only (imports are never expressions)."""
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, block, None) or ())


@functools.lru_cache(maxsize=256)
def _imported_modules(name: str, source: bytes) -> frozenset[str]:
    """Modules that *name* imports anywhere in its body (lazy imports included).

    Cached on the exact source bytes, so an edited file is parsed afresh.
    """
    package = name.rpartition(".")[0]
    found: set[str] = set()
    for node in _import_statements(ast.parse(source, name)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level else node.module
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if _is_module(submodule):
                    found.add(submodule)
                    continue
                # A name re-exported by a package: count the module that defines it.
                value = getattr(importlib.import_module(base), alias.name, None)
                found.add(getattr(value, "__module__", None) or base)
    return frozenset(found)


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def code_closure(entry: str, package: str = "anachron") -> dict[str, Path]:
    """The source files of *entry* and of every *package* module it imports, transitively.

    Imports are read from the source text (``ast``), so imports inside
    functions count.  Package initialisers (``__init__.py``) are left out and
    not followed: they only gather names, and a function or class imported
    through one is traced to the module that defines it.  Returns module name
    -> file path, sorted by name.
    """
    todo, seen = [entry], {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            spec = None
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            raise AnachronError(f"{name}: no Python source file to freeze")
        if spec.submodule_search_locations is not None:
            continue  # a package initialiser: not frozen, and its imports not followed
        path = Path(spec.origin)
        seen[name] = path
        imported = _imported_modules(name, path.read_bytes())
        todo.extend(m for m in imported if m == package or m.startswith(package + "."))
    return dict(sorted(seen.items()))


def verify_code(report: FreezeReport, entry: str) -> dict[str, Path]:
    """Require every file of :func:`code_closure` to match a sealed ``analysis`` file.

    The gate hashes the files under the contract's root; this checks the code
    that will actually run in this interpreter, which may be an installed copy.
    A module matches when an ``analysis`` entry has its package path (for
    ``anachron.core.stats.paired``, a path equal to or ending in
    ``anachron/core/stats/paired.py``) and the same SHA-256.  Raises
    :class:`FreezeNotPassed` naming each module that does not match.
    """
    analysis = report.contract.role("analysis")
    closure = code_closure(entry)
    problems = []
    for name, path in closure.items():
        # The module's path inside the package tree, wherever the tree lives.
        rel = name.replace(".", "/") + ".py"
        sealed = [f for f in analysis if f.path == rel or f.path.endswith("/" + rel)]
        if not sealed:
            problems.append(f"not frozen: {name} ({path}): the contract lists no analysis file {rel}")
        elif sha256_hex(path.read_bytes()) not in {f.sha256 for f in sealed}:
            problems.append(f"not frozen: {name} ({path}): differs from the sealed {sealed[0].path}")
    if problems:
        raise FreezeNotPassed(f"{report.directory}: the code that would run is not the frozen code", problems)
    return closure
