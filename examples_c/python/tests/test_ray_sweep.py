"""The distributed sweep of ``ray_sweep.py`` on a local Ray cluster started here (two CPUs,
loopback only): the friction estimates equal the sequential ones bit for bit, and the cluster is
gone afterwards (``ray.is_initialized()`` false, no raylet or GCS process of ours left)."""

import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")  # installed by .ci/install-deps tests (ray==2.60.0)

import ray_sweep  # noqa: E402

RAY_DAEMONS = ("raylet", "gcs_server")


def daemons(temp_dir: str) -> list[int]:
    """Ray daemon processes whose command line names our temp dir (the cluster we started)."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if temp_dir in cmd and any(name in cmd for name in RAY_DAEMONS):
            pids.append(int(d.name))
    return pids


def test_distributed_sweep_equals_sequential_and_the_cluster_shuts_down():
    recs = ray_sweep.recordings(60, [1e-4, 1e-3], [1, 2])
    sequential = ray_sweep.sweep_sequential(recs, iterations=6)
    assert all(abs(mu - 0.35) < 0.05 for mu, _ in sequential)  # the fits find μ
    temp_dir = tempfile.mkdtemp(prefix="rs")  # short: Ray puts unix sockets below it
    try:
        ray_sweep.start_local_cluster(2, temp_dir)
        try:
            assert ray.is_initialized()
            assert ray.cluster_resources().get("CPU") == 2.0
            assert daemons(temp_dir), "the local cluster's raylet and GCS run"
            distributed = ray_sweep.sweep_distributed(recs, iterations=6)
            # The tasks ran in the workers, not here: their pids differ from ours.
            pid = ray.remote(lambda: os.getpid())
            assert os.getpid() not in ray.get([pid.remote() for _ in range(2)])
        finally:
            ray.shutdown()
        assert not ray.is_initialized()
        deadline = time.monotonic() + 20
        while daemons(temp_dir) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not daemons(temp_dir), "no raylet or GCS process left"
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert len(distributed) == len(sequential) == 4
    for (mu_d, h_d), (mu_s, h_s) in zip(distributed, sequential):
        assert mu_d == mu_s
        assert h_d.tobytes() == h_s.tobytes()
    assert len({mu for mu, _ in sequential}) == 4  # four different recordings, four estimates
    assert np.all(np.isfinite([h for _, h in sequential]))
