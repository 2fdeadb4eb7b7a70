"""Catalog messages written anywhere in a line: an issue's title, prose, backticks, quotes, a
JSON error body. A message people quote is as good a clue as one a process printed, when
nothing closer (an exception or error line) names the error."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import get_close_matches
from itertools import islice

from enrich.catalog import Catalog
from enrich.catalog.regex import WORD, alternative_runs, alternative_word_lists, alternative_words, branches, captured, syntax, written_words
from enrich.logs.cut import cut_match, cut_values
from enrich.logs.engines import HIP, ROCM_SEARCH, Programs, reported_by_another
from enrich.logs.identify import raised_by, word_candidates
from enrich.logs.peel import FENCE
from enrich.logs.per_catalog import per_catalog

# a Python warning just before the words: "UserWarning: CUDA initialization: Found no NVIDIA driver
# ..." is torch.cuda.is_available() saying False, and the process goes on (unless the entry says
# its words are a failure even as a warning)
WARNED = re.compile(r"[A-Z]\w*Warning: (?:[^:\n]{1,40}: )?$")
# a string literal assigned in code, right before the words ('msg = "Not enough memory. ...'):
# source under review, not an error raised
ASSIGNED = re.compile(r"\b[A-Za-z_]\w* = [rbfu]?[\"']$")
# words just before a quote that say the error did not happen ("I no longer get ...", "it doesn't say ...")
DENIED = re.compile(r"\b(?:no longer|not|never|without|no more|instead of)\b|n't\b", re.IGNORECASE)
DENIAL_REACH = 24     # characters before the quote that may hold them (not "could not match ... and raised")
# a line of code that tests for a message's words: if "out of memory" in str(e), msg == "..."
HANDLER_TEST = re.compile(r"[\"'`] +(?:not +)?in +\w|[=!]= *[\"'`]|[\"'`] *[=!]="
                          r"|\b(?:if|elif|assert|except)\b[^\n]*[\"'`]")
# where a quoted message may start inside a line; "error=..." and "err[msg]=..." are key=value fields;
# "ERROR:root:..." is Python logging's default format; CJK prose may run into the message ("报错tokenizer ...")
# and so may a word typed without its space, before a capitalised acronym ("whyCUDA out of memory")
STARTS = re.compile(r"[`\"'(\[>*#]+\s*|: +|\bError: +|\b(?:[Ee]rr(?:or)?|msg|message|reason)(?:\[\w+\])?=[\"']?"
                    r"|\b(?:ERROR|CRITICAL):[\w.-]*:|(?<=[\u3000-\u9fff\uff00-\uffef])(?=[A-Za-z])"
                    r"|(?<=[a-z])(?=[A-Z]{2})|\s+")
MAX_STARTS = 48
OPENERS = re.compile(r"[`\"'(\[]+\s*")
QUOTED = re.compile(r"([`\"'])([^`\"']{16,400})\1")
# a quote still open where the paste ends: the cut came before its closing mark (not an apostrophe,
# which prose is full of)
OPEN_AT_END = re.compile(r"[`\"]([^`\"]{16,400})$")
EMPHASIS = re.compile(r"(\*\*|__)(.{16,400}?)\1")           # markdown's bold
# a class, or a bare "Error: "; a class named with its module need not end so (triton.runtime.errors.OutOfResources)
TYPE_LEAD = re.compile(r"(?:(?:[A-Za-z_]\w*\.)*[A-Z]\w*)?(?:Error|Exception): |(?:[a-z_]\w*\.)+[A-Z]\w*: ")
FIRST_WORD = re.compile(r"\^?([A-Za-z][\w-]*) ")
LOWER_WORD = re.compile(r"[a-z_][a-z0-9_]{2,}")
# where a title's quote may start: after a tag, a colon, a dash after an error's class
# ("RuntimeError - CUDA out of memory") or after the one word that names a component
# ("langchain_huggingface - Cannot use chat template ..."; not after prose: "Unable to load model - ..."),
# or where CJK prose gives way to the message, quoted or not ("load模型之后报错No available memory ...",
# 报错“We couldn't connect ...”; the reader has made CJK quotation marks ASCII)
TITLE_STARTS = re.compile(r"\] +|: +|(?:(?<=Error)|(?<=Exception)) [-\u2013\u2014] +"
                          r"|(?:^|(?<=\] ))[\w./-]+ [-\u2013\u2014] +"
                          r"|(?<=[\u3000-\u9fff\uff00-\uffef])[\"'`]?(?=[A-Za-z])")
TITLE_WORD = re.compile(r"(?<=\w )([A-Z][\w-]*) ")     # after a word: a dash or "&" before it joins two things
TITLE_ASIDE = re.compile(r" \(([^()]{16,})\)$")     # a title's last words in parentheses: "... fails (<message>)"
CJK_AFTER_ASCII = re.compile(r"(?<=[!-~])(?=[\u3000-\u9fff\uff00-\uffef])")
# marks before a line's words: a shell comment or heading ("# "), a quote ("> "), an opening quote
LINE_MARKS = re.compile(r"^(?:[#>]+ +|[`\"'*]+)+")
MAX_LINE = 2000
# a raise or assert statement written in a line, up to its closing quote or backtick
STATEMENTS = ("raise ", "assert ")
QUOTED_STATEMENT = re.compile(r"\b(?:raise [A-Z][\w.]*\(|assert (?=\w))[^`'\n]*")
TITLE_LINES = 5       # the first lines, where a pasted report's title is
MIN_RUN = 10          # characters of a pattern's fixed text that show a title quotes on
LEAD_WORDS = 4        # a retyped message cut short must still hold its first words
# "^(?:Error(s) in loading ...:\n)?\s*(?:size mismatch ...": the optional group, blanks and group
# openings before the first word a message may start with
OPTIONAL_LEAD = re.compile(r"^\^?\(\?:(?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)\?(?:\\s\*)?(?:\(\?:)?")


@dataclass
class Mention:
    line: int
    entry_id: str
    text: str
    groups: dict
    partial: bool = False     # the start of the message only, or its words retyped
    reworded: bool = False    # retyped with words of the writer's own: the pattern refuses it, by design


def mentions(lines: list[tuple[int, str]], catalog: Catalog, wrapped: bool = True,
             programs: Programs = Programs()) -> list[Mention]:
    """Catalog messages in (line number, text) pairs, one per line and entry; ``programs``: what
    the text shows and names of the programs at work (an engine's messages too common to trust
    alone are its own in a text that is that engine's)."""
    found: list[Mention] = []
    index = catalog.index
    # the paste's last line of text: not a blank or the code fence that closes it
    last = next((place for place in range(len(lines) - 1, -1, -1)
                 if lines[place][1].strip() and not FENCE.match(lines[place][1])), -1)
    for place, (number, line) in enumerate(lines):
        line = line[:MAX_LINE]
        if len(line) < 12:
            continue
        matched = []
        for entry in _worded(index, line):
            if _needs_site(entry, programs):
                continue
            m = _search(entry.message, line)
            if m is not None:
                matched.append(Mention(number, entry.id, m.group(0), captured(m)))
        # a quote another entry's quote holds is part of that error ("Missing key(s) ... Unexpected key(s) ..."),
        # unless that entry wraps it ("Capture cuda graph failed: <the error>")
        wraps = {m.entry_id for m in matched if catalog.entries[m.entry_id].wrapper}
        found += [m for m in matched if not any(m.text in o.text and len(o.text) > len(m.text) and o.entry_id not in wraps
                                                for o in matched)]
        if not matched:
            titled = place < TITLE_LINES and line.startswith("# ")     # a report's title
            found += (_cut_mentions(number, line, catalog, programs, last=place == last)
                      or (_titled(number, line[2:], catalog, programs) if titled else [])
                      or _raise_statement(number, line, catalog, programs))
    found += _wrapped(lines, catalog, {m.line for m in found}, programs) if wrapped else []
    if wrapped and not found:
        found = _retyped(lines, catalog, programs) or _reworded(lines, catalog, programs)
    text_of = dict(lines)
    after = {number: text for (number, _), (_, text) in zip(lines, lines[1:])}
    return [m for m in found if (m.text.startswith(STATEMENTS) or not PLACEHOLDER.search(m.text))
            and (catalog.entries[m.entry_id].warned or not _warned(text_of.get(m.line, ""), m.text))
            and not assigned(text_of.get(m.line, ""), m.text)
            and not _rocms(text_of.get(m.line, ""), m.text, after.get(m.line, ""))
            and not _reported_by_another(catalog.entries[m.entry_id], text_of.get(m.line, ""), m.text)
            and (not wrapped or _one_program(m, catalog, programs))]     # joined lines: the caller's


def _one_program(mention: Mention, catalog: Catalog, programs: Programs) -> bool:
    """No other program's entry reads the same words (sglang's copies of vLLM's checks), or the
    text shows the program, or, showing neither, names it and not the other: the words alone do
    not say which of two programs raised them."""
    program = mention.entry_id.split("/", 1)[0]
    others = {e.id.split("/", 1)[0] for e in _worded(catalog.index, mention.text)
              if e.id.split("/", 1)[0] != program and (m := _search(e.message, mention.text)) is not None
              and m.group(0) == mention.text}
    return program in programs.shown or not others or programs.owns(program, others)


def _rocms(line: str, quote: str, following: str) -> bool:
    """ROCm's HIP names itself before the words on their line, or torch's ROCm build on the line
    after them ("Search for `hipErrorIllegalAddress' ..."): its error, in CUDA's words."""
    return HIP.search(line, 0, max(line.find(quote), 0)) is not None or ROCM_SEARCH.match(following) is not None


def _reported_by_another(entry, line: str, quote: str) -> bool:
    return reported_by_another(entry, line[:max(line.find(quote), 0)])


def _warned(line: str, quote: str) -> bool:
    """The words follow a Python warning's category on their line: a warning, not a failure."""
    at = line.find(quote)
    return at > 0 and WARNED.search(line, 0, at) is not None


def assigned(line: str, quote: str) -> bool:
    """The words open a string literal that a line of code assigns."""
    at = line.find(quote)
    return at > 0 and ASSIGNED.search(line, 0, at) is not None


def _needs_site(entry, programs: Programs) -> bool:
    """The entry's words are too common to name it without its raise site, which a quote lacks,
    unless the text is its program's alone."""
    return entry.require_site and not programs.owns(entry.engine)


# "{pretrained_model_name_or_path}": an f-string in printed source code, not a message as raised
# (unless the mention is that code's raise statement)
PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.]*(?:\[[^\]{}]*\])?(?:![rsa])?\}")


def _worded(index, line: str) -> list:
    """Candidates for a line: entries whose words are all in it, and entries filed under no word
    only when some word of their pattern is in it (else every line of prose would try them)."""
    loose = index.loose_words
    words = None
    out = []
    for entry in index.message_candidates(line):
        if entry.message is None:
            continue
        if entry.id in loose:
            words = set(WORD.findall(line)) if words is None else words
            if not words & loose[entry.id]:
                continue
        out.append(entry)
    return out


def _retyped(lines: list[tuple[int, str]], catalog: Catalog, programs: Programs) -> list[Mention]:
    """Last resort, when nothing else in the paste is a catalog message: one retyped in another
    case ("valueerror: bfloat16 is only supported ..."), whole or cut, or with one word misspelt
    ("unhanled system error"), which makes it partial."""
    index = _lower_index(catalog)
    out = []
    for number, line in lines:
        words = set(LOWER_WORD.findall(line.lower()))
        quotes = list(QUOTED.finditer(line))
        spans = [q.group(2) for q in quotes]
        # a quote of a message's start, by its longer words ('"cuda out of memory" error', 'I got a
        # "cuda out of memory"'); in prose, not after words that deny it, and not in code, where a
        # handler tests for it
        title = line.startswith("# ")
        code = not title and HANDLER_TEST.search(line) is not None
        quoted = [] if code else [said for q in quotes if (title or not _denied(line, q.start()))
                                  and len(said := _long_words(q.group(2))) > 1]
        for entry, needed, leads, folded in index:
            if _needs_site(entry, programs):
                continue
            whole = any(alternative <= words for alternative in needed)
            respelt = None if whole else _respelt(line, words, needed)
            led = any(lead <= words for lead in leads)
            # a quote of fewer words must stop where the message's phrase may ("Unrecognized model" does not)
            quote_led = not led and any(said <= lead for said in quoted for lead in leads)
            if not (whole or respelt or led or quote_led):
                continue
            m = _search(folded, respelt or line) if whole or respelt else None
            spaced = _respaced(line) if m is None and whole else line
            if spaced is not line:
                m = _search(folded, spaced)
            if m is None:
                cuts = (cut_match(folded, span, phrase=quote_led) for span in spans)
                m = next((c for c in cuts if c is not None), None)
            if m is not None:
                cut = m.re is not folded
                out.append(Mention(number, entry.id, m.group(0), cut_values(m) if cut else captured(m),
                                   cut or m.string is respelt))
                break
    return out


MIN_REWORDED = 5      # words (of four letters or more) a message needs before a rewording of it is told
STEM = 5              # letters two forms of a word share ("limit", "limitation")
QUOTES = ("`", "'", '"')
# an exception's name (the names entries list are looked up) and its message after it
TYPED = re.compile(r"(?:^|(?<=[\s`'\"(\[>]))(?:[A-Za-z_]\w*\.)*(?P<name>[A-Z]\w+): +")


def _reworded(lines: list[tuple[int, str]], catalog: Catalog, programs: Programs) -> list[Mention]:
    """Last resort: a message its writer retyped after its exception's name, each word of the
    message kept in order but some in another form ("Hardware limitation" for "Hardware limit",
    "could not" for "couldn't"): the one entry of that exception it fits. A word swapped
    for another ("MPI" for "NCCL", "dataset" for "model") is another error. Partial: its values
    are not read."""
    index = _word_lists(catalog)
    for number, line in lines:
        for typed in TYPED.finditer(line):
            rest = line[typed.end():]
            said = [w for w in LOWER_WORD.findall(rest.lower()) if len(w) > 3]
            starts = {w[:4] for w in said}      # two forms of a word share these (a cheap test first)
            # every word kept as written, and the pattern still says no: a variant it refuses on purpose
            fits = {entry.id for entry, needed in index.get(typed["name"], ())
                    if any(all(w[:4] in starts for w in words)
                           and _in_order(words, said[:2 * len(words)], _same_word) == len(words)
                           > _in_order(words, said[:2 * len(words)], str.__eq__) for words in needed)
                    and not _needs_site(entry, programs)}
            if len(fits) == 1:
                opener = line[typed.start() - 1:typed.start()]      # a quote's mark closes the message
                text = rest.strip().rstrip(" .").rstrip(opener) if opener in QUOTES else rest.strip()
                return [Mention(number, fits.pop(), text, {}, True, reworded=True)]
    return []


def _same_word(a: str, b: str) -> bool:
    """Two forms of one word: one starts the other, or they share their first STEM letters. A name
    joined with an underscore ("configuration_deepseek") is no form of a word ("config")."""
    if a != b and ("_" in a) != ("_" in b):
        return False
    return a.startswith(b) or b.startswith(a) or a[:STEM] == b[:STEM] and len(a) >= STEM <= len(b)


def _in_order(words: list[str], said: list[str], same) -> int:
    """How many of ``words`` ``said`` holds in their order (the longest common subsequence)."""
    row = [0] * (len(said) + 1)
    for word in words:
        diagonal = 0
        for j, other in enumerate(said, 1):
            diagonal, row[j] = row[j], diagonal + 1 if same(word, other) else max(row[j], row[j - 1])
    return row[-1]


@per_catalog
def _word_lists(catalog: Catalog) -> dict[str, list]:
    """Exception name -> (entry, the longer words of each alternative of its message, in order),
    for alternatives of MIN_REWORDED such words or more."""
    index: dict[str, list] = {}
    for entry in catalog.entries.values():
        if entry.message is None or entry.retired is not None:
            continue
        needed = [longer for words in alternative_word_lists(entry.message)
                  if len(longer := [w.lower() for w in words if len(w) > 3]) >= MIN_REWORDED]
        for name in entry.exceptions if needed else ():
            index.setdefault(name, []).append((entry, needed))
    return index


# where a paste lost a space: after a colon ("RuntimeError:CUDA error:out of memory"; not "c10::Half",
# "cuda:0" or a URL), around an operator ("float!= c10::Half")
LOST_SPACE = re.compile(r"(?<=[^\s:]:)(?=[A-Za-z])|(?<=\w)(?=[!=]=)|(?<=[!=]=)(?=\w)")


def _respaced(line: str) -> str:
    """The line with the spaces a paste lost put back (the line itself where none was lost)."""
    spaced = LOST_SPACE.sub(" ", line)
    return line if spaced == line else spaced


def _denied(line: str, at: int) -> bool:
    """The words just before a quote say the error did not happen."""
    return DENIED.search(line, max(0, at - DENIAL_REACH), at) is not None


def _long_words(text: str) -> set[str]:
    """The words of more than three letters, in lower case: those a retyped message must keep."""
    return {w for w in LOWER_WORD.findall(text.lower()) if len(w) > 3}


MIN_MISSPELT = 6      # letters of a word whose misspelling is still told from other words
SPELLING = 0.85       # difflib's similarity of a misspelt word to the word: about one letter wrong
MAX_JOINED = 3        # letters of a short word ("to", "the") a paste ran into the next one


def _respelt(line: str, words: set[str], needed: list[set[str]]) -> str | None:
    """The line with one word respelt, where it holds every other word an alternative of the
    message needs and, for the one missing, a lower-case word that differs from it by about a letter."""
    for alternative in needed:
        missing = alternative - words
        if len(missing) != 1:
            continue
        [word] = missing
        close = (get_close_matches(word, words, n=1, cutoff=SPELLING)
                 if len(word) >= MIN_MISSPELT and len(alternative) >= LEAD_WORDS else [])
        # a word of prose, written in lower case: a name in code ("WorkHCCL") differs by a letter on purpose
        if close and close[0][0] == word[0] and close[0].isalpha():
            respelt, found = re.subn(rf"\b{close[0]}\b", word, line)
            if found:
                return respelt
        # or run together with the short word before it, the space lost ("todeserialize")
        joined = next((w for w in words if w.endswith(word) and 0 < len(w) - len(word) <= MAX_JOINED
                       and w.isalpha()), None) if len(word) >= MIN_MISSPELT else None
        if joined:
            respelt, found = re.subn(rf"\b{joined}\b", f"{joined[:-len(word)]} {word}", line)
            if found:
                return respelt
    return None


@per_catalog
def _lower_index(catalog: Catalog) -> list:
    """(entry, the longer words each alternative of its pattern demands in lower case, the first
    such words of each alternative (all a cut message keeps), the pattern ignoring case)."""
    index = []
    for entry in catalog.entries.values():
        if entry.message is not None:
            alternatives = alternative_words(entry.message)
            ends = _last_words(entry.message.pattern, len(alternatives))
            # an alternative of a few words only, among others, says too little retyped
            words = [needed for needed in ({w.lower() for w in alternative | end if len(w) > 3}
                                           for alternative, end in zip(alternatives, ends))
                     if needed and (len(needed) >= LEAD_WORDS or len(alternatives) == 1)]
            leads = [set([w.lower() for w in written_words(branch) if len(w) > 3][:LEAD_WORDS])
                     for branch in branches(entry.message.pattern)]
            index.append((entry, words, [lead for lead in leads if len(lead) == LEAD_WORDS],
                          re.compile(entry.message.pattern, entry.message.flags | re.IGNORECASE)))
    return index


BRANCH_END = re.compile(r"(?<![\\(?|])\b([A-Za-z]\w*)\\?[.!]?\$?$")     # "... was encountered" ends the branch


def _last_words(pattern: str, count: int) -> list[set[str]]:
    """The word each alternative ends with, where it ends in fixed text (a whole word the alternative's
    runs leave out, as one that may go on into a group)."""
    parts = branches(pattern) if count > 1 else [pattern]
    if len(parts) != count:
        return [set()] * count
    return [{m.group(1)} if (m := BRANCH_END.search(part)) else set() for part in parts]


def _wrapped(lines: list[tuple[int, str]], catalog: Catalog, seen: set[int], programs: Programs) -> list[Mention]:
    """A message over consecutive lines: hard-wrapped (at a space or mid-word), or a multi-line
    message printed line by line."""
    out = []
    for i, (number, line) in enumerate(lines[:-1]):
        following = [text for _, text in lines[i + 1:i + 3]]
        if number in seen or not line.strip() or not following[0].strip():
            continue
        head, tail = line.rstrip(), following[0].strip()
        known = [text for n, text in lines[i + 1:i + 3] if n in seen]    # lines that quote a message of their own
        block = "\n".join([head, *following])
        if following[-1].rstrip().endswith(",") and any(t.rstrip().endswith(":") for t in (head, *following)):
            # a list announced by a colon, printed one item per line: all its items
            block = "\n".join([block, *_listed(lines, i + 1 + len(following))])
            joins = (block, head + " " + tail, head + tail)
        else:           # two lines at a space or mid-word, three at spaces, or the lines as printed
            three = (" ".join([head, *(t.strip() for t in following)]),) if len(following) > 1 else ()
            joins = (head + " " + tail, head + tail, *three, block)
        for joined in joins:
            # a message a following line quotes on its own is that line's (joined to more lines, it
            # may run on into them: it starts there)
            found = [m for m in mentions([(number, joined)], catalog, wrapped=False, programs=programs)
                     if not any(m.text in text or m.text[:OWN_START] in text for text in known)]
            if found:
                out += found
                break
    return out


MAX_LISTED = 64       # items of a list printed one per line, read with the line that announces it
OWN_START = 40        # characters of a joined message's start that show a following line quotes it alone


def _listed(lines: list[tuple[int, str]], start: int) -> list[str]:
    """The items of a list printed one per line from ``start`` on ("name,"), the last one too: an
    entry may tell its error by all the names ("every one a quantization scale")."""
    out = []
    for _, text in lines[start:start + MAX_LISTED]:
        out.append(text)
        if not text.rstrip().endswith(","):
            break
    return out


def _cut_mentions(number: int, line: str, catalog: Catalog, programs: Programs, last: bool = False) -> list[Mention]:
    """A quoted message or an issue title that stops before the message's end; on the ``last``
    line read, a quote the paste's end left open."""
    spans = [m.group(2) for m in (*QUOTED.finditer(line), *EMPHASIS.finditer(line))]
    spans += [m.group(1) for m in [OPEN_AT_END.search(line)] if last and m]
    spans += [span[m.end():] for span in spans if (m := TYPE_LEAD.match(span))]   # quoted with its class
    start = LINE_MARKS.sub("", line, count=1)       # past a comment's, a quote's or a heading's marks
    heads = _starting_with(catalog)
    for entry in _opening_with(catalog).get(start.split(" ", 1)[0], ()):     # a line that starts a message and stops
        m = cut_match(entry.message, start)
        if m is not None and not _needs_site(entry, programs):
            return [Mention(number, entry.id, start, cut_values(m), True)]
    dropped = {}                 # a shortened title -> the words it dropped
    if line.startswith("# "):
        title = CJK_AFTER_ASCII.sub(" ", line[2:])      # "shared memory的报错": the poster's words begin there
        starts = [title] + [title[m.end():] for m in islice(TITLE_STARTS.finditer(title), 8)]
        # after the writer's subject ("llava-next-72b CUDA out of memory"): a capitalised word that starts a message
        starts += [title[m.start():] for m in islice(TITLE_WORD.finditer(title, 1), 8) if m.group(1) in heads]
        # a message the writer went on with after a colon in lower case ("fails: free memory on device ...")
        starts += [start[0].upper() + start[1:] for start in starts[1:] if start[:1].islower()]
        starts += [m.group(1) for m in [TITLE_ASIDE.search(title.rstrip())] if m]
        spans += starts
        for start in starts:
            for short in _without_last_words(start):
                spans.append(short)
                dropped[short] = start[len(short):]
    for span in spans:
        if len(span.rstrip(" .…")) < 16:       # what is said before the poster's "..." (not "Expected shape ...")
            continue
        matched = {}
        for entry in word_candidates(catalog, span):
            shortened = span in dropped
            m = cut_match(entry.message, span, sentence=shortened, phrase=shortened and _barely_past_colon(span))
            rest = dropped.get(span, "")
            if m is not None and not _goes_on_otherwise(entry.message, span, rest) and not _quotes_on(entry.message, span, rest):
                matched[entry.id] = (entry, m)
        if len(matched) > 1:           # the start of several programs' messages: the one the text is alone
            matched = {key: em for key, em in matched.items() if programs.owns(em[0].engine)}
        if len(matched) == 1:          # the start of one message only, not of several
            [(entry, m)] = matched.values()
            if _needs_site(entry, programs):
                return []
            return [Mention(number, entry.id, span, cut_values(m), True)]
    return []


@per_catalog
def _titled_entries(catalog: Catalog) -> list:
    return [e for e in catalog.entries.values() if e.titled is not None and e.retired is None]


def _titled(number: int, title: str, catalog: Catalog, programs: Programs) -> list[Mention]:
    """A report's title that names the error by the words people call it ("[Bug] deepseek illegal
    memory access on 2*8*H20"), not by its message: the entry, as partial. Titles are among the
    first lines as read (a collector may have split a long one into records)."""
    for entry in _titled_entries(catalog):
        m = entry.titled.search(title)
        if m is not None and not _needs_site(entry, programs) and not _denied(title, m.start()):
            return [Mention(number, entry.id, m.group(0), {}, True)]
    return []


def _raise_statement(number: int, line: str, catalog: Catalog, programs: Programs) -> list[Mention]:
    """A raise or assert statement an issue's title quotes ("How to solve assert numerator %
    denominator == 0"): the one entry whose statement it is, of the program the text is, as partial.
    (In prose and code, statements are what a change or a question is about, not what failed.)"""
    m = QUOTED_STATEMENT.search(line) if line.startswith("# ") else None
    if m is None:
        return []
    entries = [entry for entry in raised_by(m.group(0), catalog)
               if not _needs_site(entry, programs) and not programs.refuse(entry.id)]
    if len(entries) > 1:          # a check copied from one program into another: the one the text is
        entries = [entry for entry in entries if programs.owns(entry.engine)]
    return [Mention(number, entries[0].id, m.group(0), {}, True)] if len(entries) == 1 else []


def _goes_on_otherwise(pattern: re.Pattern, start: str, rest: str) -> bool:
    """A title whose dropped words go on with the rest of the message ("Value 'sm_30' is not
    defined for option ...") quotes all of it: a whole message the pattern did not match (of a
    pattern with alternatives, any alternative's words)."""
    return bool(rest) and any(len(run) >= MIN_RUN and run in rest and run not in start
                              for runs in alternative_runs(pattern)
                              for run in (r.replace("\0", "").strip() for r in runs))


def _quotes_on(pattern: re.Pattern, start: str, rest: str) -> bool:
    """A title whose dropped words open the quote the message puts its value in ("Error building
    extension 'fused_adam' with DeepSpeed"): the message goes on, with a value the pattern refuses."""
    words = rest.split()
    if not words or words[0][0] not in QUOTES:
        return False
    joint = start.rsplit(" ", 1)[-1] + " " + words[0][0]
    return any(joint in run for runs in alternative_runs(pattern) for run in runs)


def _barely_past_colon(title: str) -> bool:
    """Two words or fewer after the title's last colon ("CUDA error: invalid device", before the
    writer's "function ..."): a start several messages share, unless their phrase may end there."""
    return ":" in title and len(title.rsplit(":", 1)[1].split()) <= 2


def _without_last_words(title: str, most: int = 8) -> list[str]:
    """A title that quotes a message's start and goes on in its own words ("... memory error on
    Qwen3"): the title with its last words dropped, one at a time, never back over a colon and
    the two words after it ("failed: Invalid Resource" is the message's own reason, not a comment;
    "CUDA error: invalid" starts a dozen CUDA errors, "invalid argument" among them)."""
    words = title.split(" ")
    keep = max((i + 3 for i, word in enumerate(words[:-1]) if word.endswith(":")), default=1)
    return [" ".join(words[:n]) for n in range(len(words) - 1, max(len(words) - 1 - most, keep - 1), -1)]


@per_catalog
def _starting_with(catalog: Catalog) -> dict[str, list]:
    """Entries by the first word of each alternative of their message pattern, and by the first
    word after an optional lead-in (a header line a pasted continuation line lacks)."""
    return _by_first_word(catalog, opened=False)


@per_catalog
def _opening_with(catalog: Catalog) -> dict[str, list]:
    """As _starting_with, and by each word a pattern's opening group of alternatives may start
    with: a line that starts so is the message's start (not a capitalised word in a title)."""
    return _by_first_word(catalog, opened=True)


def _by_first_word(catalog: Catalog, opened: bool) -> dict[str, list]:
    index: dict[str, list] = {}
    for entry in catalog.entries.values():
        for branch in branches(entry.message.pattern) if entry.message is not None else ():
            for start in dict.fromkeys((branch, OPTIONAL_LEAD.sub("", branch, count=1))):
                for opening in _opened(start) if opened else (start,):
                    m = FIRST_WORD.match(opening)
                    if m and entry not in index.get(m.group(1), ()):
                        index.setdefault(m.group(1), []).append(entry)
    return index


OPENING_GROUP = re.compile(r"\^?\((?:\?:|\?P<\w+>)")


def _opened(branch: str, depth: int = 2) -> list[str]:
    """The branch, and where it opens with a group of alternatives that it must take
    ("(?:(Prefill|Decode) out|Out) of memory"), each alternative followed by the rest of it."""
    m = OPENING_GROUP.match(branch)
    if m is None or depth == 0:
        return [branch]
    closing = next((i for i, c, level in syntax(branch) if c == ")" and level == 1), -1)
    rest = branch[closing + 1:]
    if closing < 0 or rest[:1] in ("?", "*", "{"):
        return [branch]
    alternatives = branches(branch[m.end():closing])
    return [branch] + [opened for alternative in alternatives for opened in _opened(alternative + rest, depth - 1)]


def _search(pattern: re.Pattern, line: str) -> re.Match | None:
    m = pattern.search(line)
    if m is not None or "^" not in pattern.pattern:     # an anchored pattern, or one anchored alternative
        return m
    # every word start up to MAX_STARTS, then (a long line of prose) only where a quote opens
    starts = (*islice(STARTS.finditer(line), MAX_STARTS), *islice(OPENERS.finditer(line), MAX_STARTS))
    for start in starts:
        opening = start.group().rfind("[")      # "`[metal::malloc] ...`": the bracket may be the message's
        typed = TYPE_LEAD.match(line, start.end())      # "`RuntimeError: Could not ...`": past the type
        ats = ((start.start() + opening,) if opening >= 0 else ()) + (start.end(),) + ((typed.end(),) if typed else ())
        for at in ats:
            m = pattern.match(line[at:])
            if m is not None:
                return m
    # a message quoted whole, which the pattern says ends there ("`AssertionError: 16 is not divisible by 6`")
    for quote in QUOTED.finditer(line):
        span = quote.group(2)
        typed = TYPE_LEAD.match(span)
        m = pattern.fullmatch(span) or (pattern.fullmatch(span[typed.end():]) if typed else None)
        if m is not None:
            return m
    return None
