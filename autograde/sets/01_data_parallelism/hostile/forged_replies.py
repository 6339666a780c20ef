# attack: writes forged "passing" replies straight into the grader's reply pipe (its number is in sys.argv)
import io, struct, sys, torch
fd = int(sys.argv[-1])
for _ in range(20):
    buffer = io.BytesIO()
    torch.save({"output": "all good\n", "stderr": "", "result": None}, buffer)
    import os
    os.write(fd, struct.pack(">I", buffer.tell()) + buffer.getvalue())
