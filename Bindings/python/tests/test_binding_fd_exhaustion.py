"""FPX_ERROR_NO_FILE_DESCRIPTORS reaches Python as NoFileDescriptorsError (issue 18.2).

In a child process (the limit is process-wide): RLIMIT_NOFILE lowered and the table filled,
creating a HOST-delivery player (its event fd needs descriptors) raises NoFileDescriptorsError,
an OSError; with descriptors freed it succeeds.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import fastpix_seek
from fastpix_seek import NoFileDescriptorsError, error_class_for


def test_code_maps_to_its_class():
    assert error_class_for(-30) is NoFileDescriptorsError
    assert issubclass(NoFileDescriptorsError, OSError)
    assert fastpix_seek.errors.ERROR_NAMES[-30] == "FPX_ERROR_NO_FILE_DESCRIPTORS"


def test_create_under_emfile_raises_typed():
    child = textwrap.dedent("""
        import os, resource
        from fastpix_seek import DeliveryMode, NoFileDescriptorsError, Player
        n = len(os.listdir("/proc/self/fd"))
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (n + 8, hard))
        held = []
        try:
            while True:
                held.append(os.dup(0))
        except OSError:
            pass
        try:
            Player(delivery=DeliveryMode.HOST)
            print("created")
        except NoFileDescriptorsError as e:
            print("typed", e.code)
        for fd in held:
            os.close(fd)
        p = Player(delivery=DeliveryMode.HOST)
        p.close()
        print("after release ok")
    """)
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(fastpix_seek.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_root, env.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["typed -30", "after release ok"], out.stdout + out.stderr
