"""Atomic outputs: a file, or a set of files, replaced whole or not at all.

- :func:`staged_output`: a text stream whose bytes replace *path* only when the block ends cleanly;
- :func:`write_atomic`: one file's text, replaced at once;
- :func:`write_files_atomic`: a set of files, all of them replaced or none.

Files are staged without a name where the system allows it (Linux ``O_TMPFILE``), so
a crash or a kill leaves nothing behind; elsewhere under a hidden temporary name,
removed on errors and signals.  Written files get normal modes (``0o666`` less the
umask, as ``open`` would; an existing file keeps its own).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Mapping, TextIO

from anachron.core.errors import AnachronError

__all__ = ["staged_output", "write_atomic", "write_files_atomic"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode_for(target: Path) -> int:
    """An existing file keeps its mode; a new one gets 0o666 less the umask, as ``open`` would."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


# Filesystems that cannot make an unnamed file say so with one of these (tmpfs before Linux 3.11:
# EISDIR; some FUSE and network filesystems: EOPNOTSUPP or EINVAL).
_NO_TMPFILE = {errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


class _Staged:
    """A file being written beside its *target*, that a crash leaves no trace of where the system allows.

    On Linux it is an unnamed file (``O_TMPFILE``): a process killed even by
    SIGKILL leaves nothing, and :meth:`commit` gives it a name only to rename
    it over the target.  Elsewhere, or on a filesystem without unnamed files,
    it is a named ``.NAME.XXXX.tmp`` that :meth:`discard` removes (the CLI
    turns SIGTERM into an exception so that it runs).  The file gets the mode
    the target will keep (:func:`_mode_for`).
    """

    def __init__(self, target: Path) -> None:
        if target.is_dir():
            raise AnachronError(f"{target}: is a directory, expected a file", file=target)
        self.target = target
        self.tmp: str | None = None  # a name, once the file has one
        self.fd = _unnamed(target.parent)
        if self.fd is None:
            self.fd, self.tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            os.fchmod(self.fd, _mode_for(target))  # mkstemp makes 0600
        except BaseException:
            self.discard()
            raise

    def stream(self, errors: str = "strict") -> TextIO:
        """A text stream writing the file (closing it closes the file; :meth:`commit` and :meth:`discard` still work)."""
        fd, self.fd = self.fd, -1
        self._reopen = os.dup(fd) if self.tmp is None else -1  # an unnamed file is named through a descriptor
        return os.fdopen(fd, "w", encoding="utf-8", errors=errors, newline="\n")

    def name(self) -> str:
        """Give the file its temporary name beside the target (an unnamed file is linked in now)."""
        if self.tmp is None:
            source = f"/proc/self/fd/{self._descriptor()}"
            # A directory descriptor makes os.link call linkat with AT_SYMLINK_FOLLOW (plain link(2)
            # would link the /proc symbolic link itself, across devices).
            directory = os.open(self.target.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            try:
                for _ in range(100):
                    name = f".{self.target.name}.{os.urandom(6).hex()}.tmp"
                    try:
                        os.link(source, name, dst_dir_fd=directory, follow_symlinks=True)
                    except FileExistsError:
                        continue
                    self.tmp = str(self.target.with_name(name))
                    break
                else:
                    raise FileExistsError(errno.EEXIST, "no free temporary name", str(self.target.parent))
            finally:
                os.close(directory)
        return self.tmp

    def commit(self) -> None:
        """Rename the file over the target."""
        os.replace(self.name(), self.target)
        self.tmp = None
        self._close()

    def discard(self) -> None:
        """Remove the file (a named one by its name; an unnamed one vanishes when closed). Never raises."""
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None
        self._close()

    def _descriptor(self) -> int:
        return self.fd if self.fd >= 0 else self._reopen

    def _close(self) -> None:
        for fd in (self.fd, getattr(self, "_reopen", -1)):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.fd = self._reopen = -1


def _unnamed(directory: Path) -> int | None:
    """A descriptor of a new unnamed file in *directory* (Linux ``O_TMPFILE``), or ``None`` where there is none."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):  # the file is named through /proc at the end
        return None
    try:
        return os.open(directory, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        if exc.errno in _NO_TMPFILE:
            return None
        raise


def _stage(target: Path, text: str) -> _Staged:
    """Write *text* beside *target* in a staged file with the final mode (:class:`_Staged`)."""
    staged = _Staged(target)
    try:
        with staged.stream() as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        staged.discard()
        raise
    return staged


@contextlib.contextmanager
def staged_output(path: str | os.PathLike[str] | None) -> Iterator[TextIO]:
    """A text stream for output written piece by piece, that appears whole or not at all.

    With a *path*, the text goes to a staged file beside it (:class:`_Staged`:
    unnamed on Linux, so that even a killed process leaves nothing; with the
    mode :func:`write_atomic` gives), renamed over *path* when the block ends
    without an error.  Without one, it is spooled to an anonymous temporary
    file and copied to standard output at the end, so that bad input found
    halfway leaves standard output empty.  On an error the text is discarded.
    """
    if path is None:
        # surrogatepass: a table may show a lone surrogate, which standard output escapes.
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogatepass", newline="\n") as spool:
            yield spool
            spool.seek(0)
            sys.stdout.flush()
            for chunk in iter(lambda: spool.read(1 << 20), ""):
                sys.stdout.write(chunk)
        return
    target = Path(os.path.realpath(path))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = _Staged(target)
    except OSError as exc:
        raise AnachronError(f"{path}: cannot write: {exc.strerror or exc}", file=path) from None
    try:
        with staged.stream(errors="backslashreplace") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        staged.commit()
    except OSError as exc:
        raise AnachronError(f"{path}: cannot write: {exc.strerror or exc}", file=path) from None
    finally:
        staged.discard()


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write *text* to *path* atomically: the file is complete or untouched."""
    write_files_atomic({path: text})


def write_files_atomic(files: Mapping[str | os.PathLike[str], str]) -> None:
    """Write several files as a set: every one is staged before any is replaced.

    A failure while staging (a directory in the way, a full disk) leaves every
    target untouched and no temporary behind, and is an :class:`AnachronError`
    naming the file.  A symbolic link is written through (the file it points
    to is replaced, the link stays).  The final renames are each atomic; only
    a failure between two of them can leave the set partly replaced.
    """
    staged: list[_Staged] = []
    made: list[Path] = []  # directories this call created, outermost first
    current = None
    try:
        for path, text in files.items():
            current = Path(path)
            target = Path(os.path.realpath(current))
            made += _make_parents(target.parent)
            staged.append(_stage(target, text))
        for each in staged:  # every file named before any is replaced: a failure to name one replaces none
            current = each.target
            each.name()
        for each in list(staged):
            current = each.target
            each.commit()
            staged.remove(each)
        made.clear()
    except OSError as exc:
        raise AnachronError(f"{current}: cannot write: {exc.strerror or exc}", file=current) from None
    finally:
        for each in staged:
            each.discard()
        for directory in reversed(made):  # a failed set leaves no directory it made (a file-size limit, a full disk)
            with contextlib.suppress(OSError):
                directory.rmdir()


def _make_parents(directory: Path) -> list[Path]:
    """Make *directory* and its missing parents; the ones made, outermost first."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    for each in reversed(missing):
        each.mkdir(exist_ok=True)
    return missing[::-1]
