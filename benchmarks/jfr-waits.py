#!/usr/bin/env python3
"""Where a benchmark's threads ran and waited, from a JFR recording (many-core.sh JFR=1, or any
-XX:StartFlightRecording with benchmarks/waits.jfc).

Usage:  benchmarks/jfr-waits.py RECORDING.jfr [--top N] [--frames K]

Needs the JDK's `jfr` on the PATH. Prints, per thread group (thread names with their numbers and ids
folded: bench-client-N, macrodb-applier-...), the CPU samples (jdk.ExecutionSample: a thread running
Java code) and the time spent parked or blocked (jdk.ThreadPark, jdk.JavaMonitorEnter,
jdk.JavaMonitorWait over the recording's threshold, 1 ms in waits.jfc), then for the client threads
the MacroDB frames under which they ran and waited most. A sample is one thread seen running at one
moment (about every 10-20 ms per thread): read the shares, not the counts.
"""
import argparse
import collections
import re
import subprocess
import sys

EVENT = re.compile(r'^(jdk\.\w+) \{', re.M)
FRAME = re.compile(r'^\s+([\w$.<>]+)\(', re.M)


def fold(thread):
    t = re.sub(r'[0-9a-f]{12}', 'X', thread)
    return re.sub(r'\d+', 'N', t)


def duration_ms(text):
    m = re.search(r'duration = ([\d.]+) (\w+)', text)
    if not m:
        return 0.0
    v, unit = float(m.group(1)), m.group(2)
    return {'ns': v / 1e6, 'us': v / 1e3, 'ms': v, 's': v * 1e3, 'min': v * 6e4}.get(unit, v)


def events(path, names):
    out = subprocess.run(['jfr', 'print', '--stack-depth', '64', '--events', ','.join(names), path],
                         check=True, capture_output=True, text=True).stdout
    starts = [(m.start(), m.group(1)) for m in EVENT.finditer(out)]
    for i, (pos, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(out)
        yield name, out[pos:end]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('recording')
    ap.add_argument('--top', type=int, default=12, help='rows per table (default 12)')
    ap.add_argument('--frames', type=int, default=3, help='MacroDB frames that name a place (default 3)')
    a = ap.parse_args()

    cpu = collections.Counter()
    waited = collections.Counter()
    cpu_at = collections.Counter()
    wait_at = collections.Counter()
    wait_n = collections.Counter()
    for name, text in events(a.recording, ['jdk.ExecutionSample', 'jdk.ThreadPark', 'jdk.JavaMonitorEnter', 'jdk.JavaMonitorWait']):
        m = re.search(r'(?:sampledThread|eventThread) = "([^"]*)"', text)
        group = fold(m.group(1)) if m else '?'
        frames = FRAME.findall(text)
        ours = [f.rsplit('.', 2)[-2] + '.' + f.rsplit('.', 1)[-1] for f in frames if f.startswith('io.macrodb') and '.bench.' not in f]
        place = ' <- '.join(ours[:a.frames]) or (frames[0] if frames else '?')
        if name == 'jdk.ExecutionSample':
            cpu[group] += 1
            if group.startswith('bench-client'):
                cpu_at[place] += 1
        else:
            ms = duration_ms(text)
            waited[group] += ms
            if group.startswith('bench-client'):
                wait_at[(name.split('.')[-1], place)] += ms
                wait_n[(name.split('.')[-1], place)] += 1

    total = sum(cpu.values()) or 1
    print(f'CPU samples by thread group ({total} in all)')
    for g, n in cpu.most_common(a.top):
        print(f'  {n:7d}  {100.0 * n / total:5.1f}%  {g}')
    print('\nTime parked or blocked by thread group (waits over the threshold), ms')
    for g, ms in waited.most_common(a.top):
        print(f'  {ms:10.0f}  {g}')
    clients = sum(v for k, v in cpu.items() if k.startswith('bench-client')) or 1
    print(f'\nClient threads: CPU samples under MacroDB frames ({clients} client samples)')
    for p, n in cpu_at.most_common(a.top):
        print(f'  {n:7d}  {100.0 * n / clients:5.1f}%  {p}')
    print('\nClient threads: where they waited, ms (count, mean)')
    for (kind, p), ms in wait_at.most_common(a.top):
        n = wait_n[(kind, p)]
        print(f'  {ms:10.0f}  {n:7d}  {ms / n:7.2f} ms  {kind}  {p}')


if __name__ == '__main__':
    sys.exit(main())
