# attack: kills its own process (os._exit) whenever it is asked anything
import os
os._exit(0)
