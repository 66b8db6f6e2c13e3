#!/usr/bin/env python3
"""Opens N files at once in one thread and holds them: a sample for `fdbench trace`.

Makes N empty files in a fresh temporary directory with mknod (no descriptor, so the trace
shows only the opens), opens every one and holds them, then closes them and removes the
directory. Usage: open_many.py [N] (default 10000).
"""
import os
import resource
import shutil
import stat
import sys
import tempfile

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
top = tempfile.mkdtemp(prefix="open-many-")
try:
    for i in range(n):
        os.mknod(os.path.join(top, f"{i}.txt"), stat.S_IFREG | 0o600)
    fds = [os.open(os.path.join(top, f"{i}.txt"), os.O_RDONLY) for i in range(n)]
    print(f"opened {len(fds)} files in one thread")
    for fd in fds:
        os.close(fd)
finally:
    shutil.rmtree(top)
