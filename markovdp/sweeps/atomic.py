"""`atomic_write`: the one way markovdp writes a file (a temporary name beside it, then ``os.replace``).

A kill at any moment leaves either the complete old file, the complete new file, or no file — never a
truncated one under the final name. The temporary name starts with a dot and ends in ``.tmp`` (never
``.nc``), so a half-written file is never mistaken for a result.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_write"]


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on a clean exit, flush it to disk and rename it onto `path`.

    Write the whole file to the yielded path (``tmp.write_bytes``, ``ds.to_netcdf(tmp)``,
    ``fig.savefig(tmp, format="png")``). On an exception the temporary file is removed and `path` is
    untouched. The parent folder is created if needed. An `OSError` without a file name (a full disk
    reported on an open handle) is raised again naming `path`.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        yield tmp
        with open(tmp, "rb+") as fh:  # the writer may have closed its handle: reopen to flush to disk
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if exc.filename is None and exc.errno is not None:  # a full disk seen on an open handle: name the file
            raise type(exc)(exc.errno, exc.strerror, str(path)) from exc
        raise
    finally:
        tmp.unlink(missing_ok=True)
