"""What bench/mispredict_sites.py and bench/op_cache.py share: their arguments (IPCC PROG,
--quick, rows N:X) and the model backend's figure for a row, the difference of two runs."""
import json
import subprocess
import sys
import tempfile


def arguments(argv, doc, name, default, valid, what, parse=None):
    """(ipcc, prog, quick, rows) from [--quick] IPCC PROG [N:X ...], rows `default` where none
    is given; or an exit status (the docstring printed, or what is wrong with a row). A row
    is `parse(text)` (None where it is not one; default: its integers), then `valid(*row)`."""
    if argv and argv[0] in ("-h", "--help"):
        print(doc)
        return 0
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    if len(argv) < 2:
        print(doc)
        return 2
    try:
        rows = [(parse or (lambda a: tuple(int(x) for x in a.split(":"))))(a)
                for a in argv[2:]] or default
    except ValueError:
        print(f"{name}: a row is {what}", file=sys.stderr)
        return 2
    if any(row is None or len(row) != 2 or not valid(*row) for row in rows):
        print(f"{name}: a row is {what}", file=sys.stderr)
        return 2
    return argv[0], argv[1], quick, rows


def model_difference(ipcc, command, passes, figures, extra=()):
    """figures(ipcc stat's JSON) for `command(passes)` run under the model backend (with ipcc
    stat's options `extra`), and for command(2 * passes): the second's less the first's, so
    that neither the program's start nor its first pass counts."""
    got = []
    for p in (passes, 2 * passes):
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            subprocess.run([ipcc, "stat", "--backend", "model", "--format", "json", "-o",
                            out.name] + list(extra) + ["--"] + command(p),
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            with open(out.name) as f:
                got.append(figures(json.load(f)))
    return [b - a for a, b in zip(got[0], got[1])]
