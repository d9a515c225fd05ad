"""The registry of formats: what a file is detected as, which format reads it for each role,
and that a load reads the head of each file once (readers and hints share it)."""

from __future__ import annotations

import pytest

from llrlab.core import LlrlabError
from llrlab.core.io import _fast, _formats, _source, load_trials, write_scores
from llrlab.core.io._formats import REGISTRY, detect, format_for, head_of
from llrlab.core.io._source import open_source

from ._files import write

SCORES = "m1 s1 1.5\nm1 s2 -0.5\nm2 s1 0.25\n"
KEY = "m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n"


@pytest.mark.parametrize(("content", "name", "detected"), [
    (SCORES, "s.txt", "bosaris-scores"),
    ("m1,s1,1.5\n", "s.csv", "bosaris-scores"),
    (KEY, "k.txt", "bosaris-key"),
    ("m1 s1 1.5 target\n", "l.txt", "labelled"),
    ("1.5 tgt\n-2 imp\n", "l.txt", "labelled"),
    ("\ufeffLLR,Class\n1.5,tgt\n", "l.csv", "labelled-header"),
    ("0.5\n1\n", "b.txt", "bare-scores"),
    ("m1 s1 tel\n", "c.txt", "conditions"),
    ("model segment score\n" + SCORES, "h.txt", None),  # a header a BOSARIS file cannot have
    ("a b c d e\n", "x.txt", None),
])
def test_what_a_text_file_is_detected_as(tmp_path, content, name, detected):
    src = open_source(write(tmp_path / name, content))
    fmt = detect(head_of(src))
    assert (fmt and fmt.name) == detected
    if fmt is not None:
        assert fmt.description(head_of(src))


def test_hdf5_files_are_described_by_their_layout(tmp_path):
    s, k = write(tmp_path / "s.txt", SCORES), write(tmp_path / "k.txt", KEY)
    write_scores(tmp_path / "s.h5", load_trials(s, k))
    head = head_of(open_source(tmp_path / "s.h5"))
    assert detect(head).name == "hdf5"
    assert detect(head).description(head) == "a BOSARIS HDF5 score file (/scores + /score_mask)"


@pytest.mark.parametrize(("content", "role", "reader"), [
    (SCORES, "scores", "bosaris-scores"),
    (KEY, "scores", "bosaris-scores"),        # claimed: its reader reports the bad line
    (KEY, "key", "bosaris-key"),
    (SCORES, "key", "bosaris-key"),
    (SCORES, "score-file", "bosaris-scores"),
    ("a b c\n", "score-file", "bosaris-scores"),
    ("a b\n", "score-file", "labelled"),
    ("score label\n1 tgt\n", "score-file", "labelled-header"),
    ("model segment foo label\n", "score-file", "labelled-header"),  # its reader says why
    ("1\n2\n", "score-file", "bare-scores"),
    ("a b c d e\n", "score-file", "other"),
    ("1\n2\n", "unlabelled", "bare-scores"),
    ("1.5 target\n", "labelled", "labelled"),
    (SCORES, "labelled", "labelled"),
    (KEY, "ndx", "bosaris-key"),
    ("m1 s1 tel\n", "conditions", "conditions"),
])
def test_the_reader_of_each_role(tmp_path, content, role, reader):
    src = open_source(write(tmp_path / "f.txt", content))
    assert format_for(head_of(src), role).name == reader


def test_every_role_has_a_reader_for_any_text_file():
    roles = {r for f in REGISTRY for r in f.serves}
    assert roles == {"scores", "key", "ndx", "labelled", "conditions", "unlabelled",
                     "score-file"}
    assert len({f.name for f in REGISTRY}) == len(REGISTRY)


def _count_opens(monkeypatch):
    opened = {}
    real = _source.Source.open

    def counting(self):
        opened[self.name] = opened.get(self.name, 0) + 1
        return real(self)

    monkeypatch.setattr(_source.Source, "open", counting)
    return opened


def test_a_load_reads_the_head_of_each_file_once(tmp_path, monkeypatch):
    monkeypatch.setattr(_fast, "SMALL", 0)
    s, k = write(tmp_path / "s.txt", SCORES), write(tmp_path / "k.txt", KEY)
    opened = _count_opens(monkeypatch)
    load_trials(s, k)
    assert opened == {str(s): 2, str(k): 2}  # the head, then the data


def test_a_refused_file_is_not_read_again_for_its_hint(tmp_path, monkeypatch):
    monkeypatch.setattr(_fast, "SMALL", 0)
    s, k = write(tmp_path / "s.txt", SCORES), write(tmp_path / "k.txt", KEY)
    opened = _count_opens(monkeypatch)
    with pytest.raises(LlrlabError, match="the two files look swapped"):
        load_trials(k, s)
    # the key given as scores: its head, the fast reader (which gives up) and the exact
    # reader (which reports line 1); the score file given as key: its head, for the hint
    assert opened == {str(k): 3, str(s): 1}


def test_the_head_remembers_an_error(tmp_path, monkeypatch):
    src = open_source(write(tmp_path / "e.txt", "\n \n"))
    opened = _count_opens(monkeypatch)
    head = head_of(src)
    for _ in range(2):
        with pytest.raises(LlrlabError, match="is empty"):
            head.first_row((3,))
    assert head.peek() is None
    assert opened == {str(src.name): 1}  # read once: the other questions are answered from memory
    assert _formats.head_of(src) is head
