#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Carry the hand-written subject and prose of the old cover letter into the
one git format-patch just generated (which has placeholder text and a fresh
shortlog and diffstat).  Usage: cover-letter.py OLD NEW"""
import re
import sys

old_path, new_path = sys.argv[1], sys.argv[2]
new = open(new_path).read()
try:
    old = open(old_path).read()
except FileNotFoundError:
    sys.exit(0)     # first time: keep the placeholders for the author to fill in

subject = re.search(r'^Subject: \[PATCH[^\]]*\] (.*(?:\n [^\n]*)*)', old, re.M)
head, _, body = old.partition('\n\n')
# The prose ends where git's shortlog starts: "Author Name (N):"
blurb = re.split(r'\n[^\n]+ \(\d+\):\n', body, maxsplit=1)[0].strip('\n')
if subject:
    new = new.replace('*** SUBJECT HERE ***', subject.group(1))
new = new.replace('*** BLURB HERE ***', blurb)
open(new_path, 'w').write(new)
