#!/usr/bin/env python3
"""How long a backup and a restore take for N photos (default 1,000), and how big the backup is.

    python3 bench/backup-restore.py [N] [fs|s3]

Uses the restore drill's pieces (scripts/restore_drill.py): a scratch database and store, N
uploads through the API (noise photos of 1600×1200, ~0.6 MB each, with their three renditions),
then `selfie backup`, a second (incremental) backup, and `selfie restore` into an empty database
and store. For s3 the test peers must be running (`bash scripts/test-peers.sh start` and its env).
"""
import concurrent.futures
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import restore_drill as drill  # noqa: E402

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
kind = sys.argv[2] if len(sys.argv) > 2 else "fs"
os.makedirs(drill.WORK, exist_ok=True)
stamp = f"bench-{kind}-{int(time.time())}"
backup = os.path.join(drill.WORK, f"bench-backup-{kind}")
shutil.rmtree(backup, ignore_errors=True)
source_url = drill.fresh_database("selfie_bench_backup")
source = drill.Store(kind, f"{stamp}-source" if kind == "s3" else os.path.join(drill.WORK, "bench-source-blobs"))
server = drill.Server(source_url, source, os.path.join(drill.WORK, "bench.log"))
token = drill.sign_up(server, "bench@example.com")
photos = [drill.photo(i % 50) for i in range(50)]
started = time.time()
with concurrent.futures.ThreadPoolExecutor(3) as pool:
    list(pool.map(lambda i: drill.upload(server, token, photos[i % 50], f"photo {i}"), range(count)))
print(f"{count} photos uploaded in {time.time() - started:.0f} s")
server.stop()


def timed(arguments, url, store):
    run, seconds = drill.selfie(arguments, url, store)
    return run.stdout.strip(), seconds


out, first = timed(["backup", backup], source_url, source)
print(out)
out, second = timed(["backup", backup], source_url, source)
print(out)
size = int(subprocess.run(["du", "-sb", backup], capture_output=True, text=True).stdout.split()[0])
target_url = drill.fresh_database("selfie_bench_restored")
target = drill.Store(kind, f"{stamp}-restored" if kind == "s3" else os.path.join(drill.WORK, "bench-restored-blobs"))
out, restore = timed(["restore", backup], target_url, target)
print(out)
print(f"{kind}, {count} photos: first backup {first:.1f} s, second (nothing new) {second:.1f} s, "
      f"backup size {size / 1e6:.0f} MB, restore {restore:.1f} s")
drill.drop_database("selfie_bench_backup")
drill.drop_database("selfie_bench_restored")
source.wipe()
target.wipe()
shutil.rmtree(backup)
