base = zen5
name = zen5-adds
# zen5 with the placement fitted to skid.adds measured on Zen 5 (samples on offsets 1 and 3):
# the oldest unretired instruction, as if retiring 2 a cycle. It costs the other four skid
# kernels (total distance 3.327 against the built-in zen5's 1.349): a fit, not a model.
placement = oldest
sample_retire = 2
# Fitted while zen5 counted the loop's dec, jnz as two slots; alu_jcc_one_slot (stop 62)
# moves the samples of this fit to distance 0.51 (the built-in's own move: skid_fit_zen5).
alu_jcc_one_slot = false
