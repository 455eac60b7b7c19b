#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the results of one 'make check' run and print 'N passed, N failed'.

Each argument is LABEL=FILE.  FILE is either a QEMU console log written by
host/run-qemu.sh (FILE.rc holds the runner's exit status) or a plain TAP
file.  Console logs hold up to two documents: the KUnit KTAP the kernel
prints at boot (before '#### guest-up') and the guest tests' KTAP (between
'#### guest-tests-begin' and '#### guest-tests-end').  Both are parsed with
the kernel's own KTAP parser, tools/testing/kunit/kunit_parser.py.
"""
import io
import os
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tree = os.environ.get('TREE', os.path.join(top, 'build', 'linux'))
sys.path.insert(0, os.path.join(tree, 'tools', 'testing', 'kunit'))
import kunit_parser  # noqa: E402
import kunit_printer  # noqa: E402

passed = 0
failed = 0


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
    if test.status == kunit_parser.TestStatus.SUCCESS or \
       test.status == kunit_parser.TestStatus.SKIPPED:
        passed += 1
    elif test.status != kunit_parser.TestStatus.NO_TESTS:
        fail(label, f'{name}: {test.status.name.lower()}', test.log[-80:])


def parse(label, lines):
    saved = kunit_printer.stdout._output
    kunit_printer.stdout._output = io.StringIO()
    try:
        test = kunit_parser.parse_run_tests(lines)
    except ValueError as e:
        fail(label, f'results cut short or malformed ({e})', lines[-20:])
        return
    finally:
        kunit_printer.stdout._output = saved
    if test.status == kunit_parser.TestStatus.FAILURE_TO_PARSE_TESTS:
        fail(label, 'no KTAP/TAP output found')
        return
    before = passed, failed
    walk(label, test, [])
    print(f'  {label}: {passed - before[0]} passed, {failed - before[1]} failed')


def console(label, path):
    with open(path, errors='replace') as f:
        lines = [line.rstrip('\r\n').replace('\r', '') for line in f]
    rc_file = path + '.rc'
    rc = open(rc_file).read().strip() if os.path.exists(rc_file) else '?'

    def index(marker):
        return next((i for i, line in enumerate(lines) if line == marker), None)

    up = index('#### guest-up')
    begin = index('#### guest-tests-begin')
    end = index('#### guest-tests-end')
    boot = lines[:up] if up is not None else lines
    if any('KTAP version' in line for line in boot):
        parse(f'{label}/kunit', boot)
    if up is None:
        fail(label, f'guest never reached userspace (runner exit {rc})', lines[-25:])
        return
    if begin is None or end is None:
        fail(label, f'guest tests did not finish (runner exit {rc})', lines[-25:])
        if begin is not None:
            parse(f'{label}/guest', lines[begin + 1:])
        return
    before = failed
    parse(f'{label}/guest', lines[begin + 1:end])
    if rc != '0' and failed == before:
        fail(label, f'guest job exited {rc} although every test result was read',
             lines[end:][-15:])


def main():
    for arg in sys.argv[1:]:
        label, _, path = arg.partition('=')
        if not os.path.exists(path):
            fail(label, f'no result file {path}')
        elif path.endswith('.log'):
            console(label, path)
        else:
            with open(path) as f:
                parse(label, [line.rstrip('\n') for line in f])
    print(f'{passed} passed, {failed} failed')
    return 1 if failed or not passed else 0


if __name__ == '__main__':
    sys.exit(main())
