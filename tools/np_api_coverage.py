"""How much of MXNet 1.9.1's NumPy-dialect API (`mx.np`, `mx.np.linalg`, `mx.np.random`,
`mx.npx`, and their faces `mx.nd.np`, `mx.sym.np`, ...) the gluonlite that `python3` imports
provides, printed apart from the legacy namespaces that ../shared/peer/api_coverage.py counts.

mxnet-1.9.1-np-api.txt (beside this file, made by make_np_api_list.py on MXNet 1.9.1 itself)
lists every public name of those namespaces, one ``module.name`` a line. A name counts as
provided when ``gluonlite.<module>.<name>`` resolves; whether it behaves as MXNet's does is
what MXNet's test_numpy_*.py files (run by ../shared/peer/run.sh) check.

usage: python3 tools/np_api_coverage.py [--missing] [--module PREFIX]
"""
import argparse
import importlib
import os
import sys


# the project's own gluonlite (this file's parent folder), whatever the working directory
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def resolve(dotted):
    import gluonlite
    obj = gluonlite
    for part in dotted.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:
            try:
                obj = importlib.import_module(obj.__name__ + "." + part)
            except Exception:
                return False
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--missing", action="store_true", help="list the names not provided")
    ap.add_argument("--module", default="", help="count only modules starting with this")
    args = ap.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    names = [line.strip() for line in open(os.path.join(here, "mxnet-1.9.1-np-api.txt"),
                                           encoding="utf-8") if line.strip()]
    names = [n for n in names if n.startswith(args.module)]
    per = {}
    for n in names:
        mod = n.rsplit(".", 1)[0]
        per.setdefault(mod, {"ok": [], "missing": []})["ok" if resolve(n) else "missing"].append(n)
    ok = total = 0
    print("%-36s %9s" % ("NumPy-dialect module", "provided"))
    for mod in sorted(per):
        d = per[mod]
        den = len(d["ok"]) + len(d["missing"])
        ok, total = ok + len(d["ok"]), total + den
        print("%-36s %4d/%-4d" % (mod, len(d["ok"]), den))
        if args.missing and d["missing"]:
            print("    missing: " + " ".join(x.rsplit(".", 1)[1] for x in d["missing"]))
    print(f"MXNet 1.9.1 NumPy-dialect API provided: {ok}/{total}")
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
