#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the results of one 'make check' run and print 'N passed, N failed'.

Each argument is LABEL=FILE.  FILE is either a QEMU console log written by
host/run-qemu.sh (FILE.rc holds the runner's exit status) or a plain TAP
file.  Console logs hold up to two documents: the KUnit KTAP the kernel
prints at boot (before '#### guest-up') and the guest tests' KTAP (between
'#### guest-tests-begin' and '#### guest-tests-end').  Both are parsed with
the kernel's own KTAP parser, tools/testing/kunit/kunit_parser.py.

With --manifest FILE (host/manifest), a console log whose LABEL is a boot
named there must report exactly the guest tests and KUnit suites (with
their case counts) listed for it, and a skipped test point passes only if
the manifest allows it for that boot: anything missing, short, unlisted
or skipped without leave is a failure naming it.  Allowed skips are
counted apart, on the line before the summary.  Two boots the manifest
pairs with 'compare' (the kernel's own mm selftests with the token on and
off) are judged against each other instead: a test point that ends
differently in the two fails; one that passes in both passes; one skipped
or failed in both is listed and counted as neither.  A 'vary' line names
points whose text changes from run to run (a selftest that prints a size
it chose at run time): they are compared under the line's pattern.
"""
import fnmatch
import io
import os
import re
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tree = os.environ.get('TREE', os.path.join(top, 'build', 'linux'))
sys.path.insert(0, os.path.join(tree, 'tools', 'testing', 'kunit'))
import kunit_parser  # noqa: E402
import kunit_printer  # noqa: E402

passed = 0
failed = 0
skipped = []            # (label, test point) of every skipped leaf
manifest = {}           # boot -> {'kunit': {suite: cases}, 'tests': [...], 'skips': [...],
#         'vary': [...]}
compare = []            # (boot, other boot): judged by comparing their points
points = {}             # boot of a compared pair -> {test point: status}


def compared(boot):
    return any(boot in pair for pair in compare)


def fail(label, msg, log=()):
    global failed
    failed += 1
    print(f'FAIL {label}: {msg}')
    for line in log:
        print(f'    | {line}')


def walk(label, test, path):
    """Count leaf tests; report failed leaves and parse errors with their log."""
    global passed
    name = '.'.join(p for p in path + [test.name] if p) or 'document'
    if not path and not test.subtests and test.expected_count == 0:
        fail(label, 'the document planned no tests (1..0): nothing ran')
    elif test.counts.errors and not test.subtests:
        fail(label, f'{name}: malformed or missing results', test.log[-20:])
    elif not test.subtests and test.expected_count not in (None, 0):
        fail(label, f'{name}: planned {test.expected_count} results, got none',
             test.log[-20:])
    if test.subtests:
        for sub in test.subtests:
            walk(label, sub, path + [test.name] if path else [''])
        if test.expected_count and len(test.subtests) < test.expected_count:
            fail(label, f'{name}: planned {test.expected_count} results, '
                 f'got {len(test.subtests)}', test.log[-20:])
        return
    boot = label.split('/')[0]
    if compared(boot):
        # Judged later, against the other boot of the pair; a name seen
        # again (some selftests repeat one) gets its occurrence number.
        seen = points.setdefault(boot, {})
        varies = manifest.get(boot, {}).get('vary', [])
        name = next((p for p, _ in varies if fnmatch.fnmatchcase(name, p)), name)
        key, k = name, 1
        while key in seen:
            k += 1
            key = f'{name} #{k}'
        seen[key] = test.status.name.lower()
        return
    if test.status == kunit_parser.TestStatus.SUCCESS:
        passed += 1
    elif test.status == kunit_parser.TestStatus.SKIPPED:
        skipped.append((label, name))
    elif test.status != kunit_parser.TestStatus.NO_TESTS:
        fail(label, f'{name}: {test.status.name.lower()}', test.log[-80:])


def parse(label, lines):
    saved = kunit_printer.stdout._output
    kunit_printer.stdout._output = io.StringIO()
    try:
        test = kunit_parser.parse_run_tests(lines)
    except ValueError as e:
        fail(label, f'results cut short or malformed ({e})', lines[-20:])
        return None
    finally:
        kunit_printer.stdout._output = saved
    if test.status == kunit_parser.TestStatus.FAILURE_TO_PARSE_TESTS:
        fail(label, 'no KTAP/TAP output found')
        return None
    before = passed, failed, len(skipped)
    boot = label.split('/')[0]
    held = len(points.get(boot, {}))
    walk(label, test, [])
    if compared(boot):
        print(f'  {label}: {len(points.get(boot, {})) - held} points, compared below')
        return test
    print(f'  {label}: {passed - before[0]} passed, {failed - before[1]} failed, '
          f'{len(skipped) - before[2]} skipped')
    return test


# KUnit prints its KTAP at boot while other CPUs print too.  The kernel's
# parser wants a suite's '# Subtest' line right after its 'KTAP version'
# line: a message between them costs the suite its name.  So only KTAP
# lines reach it: after the printk time stamp, a version line, a plan, a
# result, a '#' diagnostic, or an indented line (a case's log).  Anything
# else the kernel said is judged by host/kernel-reports.sh.
KTAP_LINE = re.compile(r'(\[ *[0-9]+\.[0-9]+\] )?(\s|KTAP version|TAP version|1\.\.|ok |not ok |#)')


def console(label, path):
    with open(path, errors='replace') as f:
        lines = [line.rstrip('\r\n').replace('\r', '') for line in f]
    rc_file = path + '.rc'
    rc = open(rc_file).read().strip() if os.path.exists(rc_file) else '?'

    # A marker starts its line; a kernel message printed at the same moment
    # may follow it on that line (the console is the guest's serial port).
    def index(marker):
        return next((i for i, line in enumerate(lines) if line.startswith(marker)), None)

    up = index('#### guest-up')
    begin = index('#### guest-tests-begin')
    end = index('#### guest-tests-end')
    boot = lines[:up] if up is not None else lines
    kunit = guest = None
    if any('KTAP version' in line for line in boot):
        kunit = parse(f'{label}/kunit', [line for line in boot if KTAP_LINE.match(line)])
    if up is None:
        fail(label, f'guest never reached userspace (runner exit {rc})', lines[-25:])
    elif begin is None or end is None:
        fail(label, f'guest tests did not finish (runner exit {rc})', lines[-25:])
        if begin is not None:
            guest = parse(f'{label}/guest', lines[begin + 1:])
    else:
        before = failed
        guest = parse(f'{label}/guest', lines[begin + 1:end])
        if rc != '0' and failed == before:
            fail(label, f'guest job exited {rc} although every test result was read',
                 lines[end:][-15:])
    if label in manifest:
        check_manifest(label, kunit, guest)


def read_manifest(path):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith('#'):
                continue
            boot = manifest.setdefault(words[0], {'kunit': {}, 'tests': [], 'points': {},
                                                  'skips': [], 'vary': []})
            kind = words[1] if len(words) > 1 else ''
            if kind == 'kunit' and len(words) == 4 and words[3].isdigit():
                boot['kunit'][words[2]] = int(words[3])
            elif kind == 'test' and (len(words) == 3 or len(words) == 4 and words[3].isdigit()):
                boot['tests'].append(words[2])
                if len(words) == 4:
                    boot['points'][words[2]] = int(words[3])
            elif kind == 'compare' and len(words) == 3:
                compare.append((words[0], words[2]))
            elif kind in ('skip', 'vary') and ' -- ' in line:
                pattern, _, reason = line.split(None, 2)[2].partition(' -- ')
                boot['skips' if kind == 'skip' else 'vary'].append(
                    (pattern.strip(), reason.strip()))
            else:
                sys.exit(f'{path}:{number}: cannot read this line: {line.rstrip()}')


def check_manifest(label, kunit, guest):
    """The boot LABEL reported what the manifest lists for it, and no more."""
    want = manifest[label]
    got = {t.name: len(t.subtests) for t in kunit.subtests} if kunit else {}
    for suite, cases in want['kunit'].items():
        if suite not in got:
            fail(label, f'KUnit suite {suite} did not report (host/manifest: {cases} cases)')
        elif got[suite] != cases:
            fail(label, f'KUnit suite {suite} reported {got[suite]} cases, '
                 f'host/manifest expects {cases}')
    names = [t.name for t in guest.subtests] if guest else []
    for name in want['tests']:
        if name not in names:
            fail(label, f'guest test {name} did not report')
    for t in guest.subtests if guest else []:
        n = want['points'].get(t.name)
        if n is not None and len(t.subtests) != n:
            fail(label, f'guest test {t.name} reported {len(t.subtests)} points, '
                 f'host/manifest expects {n}')
    for name in names:
        if name not in want['tests']:
            fail(label, f'guest test {name} ran but is not in host/manifest')


def judge_compared():
    """Each point of a compared pair of boots must end the same in both.

    A point that passes in both is a pass.  One skipped or failed in both
    says nothing about the feature: it is listed and counted as neither.
    Returns (skipped alike, failed alike)."""
    global passed
    alike = {'skipped': 0, 'failed': 0}
    for a, b in compare:
        pa, pb = points.get(a, {}), points.get(b, {})
        same = {}
        shown = {}      # (status, point without its occurrence number): count
        for key in sorted(set(pa) | set(pb)):
            sa, sb = pa.get(key, 'missing'), pb.get(key, 'missing')
            if sa != sb:
                fail(f'{a} vs {b}', f'{key}: {sa} in {a}, {sb} in {b}')
                continue
            same[sa] = same.get(sa, 0) + 1
            if sa == 'success':
                passed += 1
                continue
            alike['skipped' if sa == 'skipped' else 'failed'] += 1
            what = (sa, re.sub(r' #[0-9]+$', '', key))
            shown[what] = shown.get(what, 0) + 1
        for (st, name), n in sorted(shown.items()):
            print(f'  {st} in {a} and {b} alike: {name}' + (f' ({n} times)' if n > 1 else ''))
        print(f'  {a} vs {b}: {sum(same.values())} points end the same ('
              + ', '.join(f'{n} {st}' for st, n in sorted(same.items())) + ')')
    return alike['skipped'], alike['failed']


def judge_skips():
    """Allowed skips are counted apart; every other one is a failure."""
    allowed = 0
    for label, name in skipped:
        boot = manifest.get(label.split('/')[0], {'skips': []})
        reason = next((r for p, r in boot['skips'] if fnmatch.fnmatchcase(name, p)), None)
        if reason is None:
            fail(label, f'{name}: skipped, and host/manifest allows no such skip')
        else:
            allowed += 1
            print(f'  skip {label}: {name} (host/manifest: {reason})')
    return allowed


def main():
    args = sys.argv[1:]
    if args[:1] == ['--manifest']:
        if len(args) < 2:
            sys.exit('usage: results.py [--manifest FILE] LABEL=FILE...')
        read_manifest(args[1])
        args = args[2:]
    for arg in args:
        label, _, path = arg.partition('=')
        if not os.path.exists(path):
            fail(label, f'no result file {path}')
        elif path.endswith('.log'):
            console(label, path)
        else:
            with open(path) as f:
                lines = [line.rstrip('\n') for line in f]
            test = parse(label, lines)
            # The kernel's parser reads no further than the plan.
            results = sum(1 for line in lines if re.match(r'(not )?ok ', line))
            if test and test.expected_count is not None and results > test.expected_count:
                fail(label, f'{results} results, but the plan says {test.expected_count}: '
                     'the rest went unread')
    labels = [arg.partition('=')[0] for arg in args]
    for boot in manifest:
        if boot not in labels:
            fail(boot, 'host/manifest lists this boot, but it has no result')
    skipped_alike, failed_alike = judge_compared()
    allowed = judge_skips()
    print(f'{allowed} skipped, each allowed by host/manifest'
          + (f'; {skipped_alike} skipped and {failed_alike} failed in the '
             'compared boots alike, counted as neither' if compare else ''))
    print(f'{passed} passed, {failed} failed')
    return 1 if failed or not passed else 0


if __name__ == '__main__':
    sys.exit(main())
