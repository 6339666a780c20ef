# attack: every launch answers with no result at all (no rank runs): a check that zips results would pass on nothing
import distlab
distlab.launch = lambda fn, world_size=4, *args, **kwargs: []
