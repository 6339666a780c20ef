# replaces: save_checkpoint
# differs: serializes into an io.BytesIO first and writes the bytes to the temporary file afterwards (mkstemp, fsync,
#          os.replace, fsync of the folder)
def save_checkpoint(path, state):
    buffer = io.BytesIO()
    torch.save(state, buffer)
    path = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder)
    try:
        with open(fd, "wb") as f:
            f.write(buffer.getbuffer())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    os.fsync(dir_fd)
    os.close(dir_fd)
