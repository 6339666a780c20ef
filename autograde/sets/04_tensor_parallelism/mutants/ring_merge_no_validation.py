# replaces: merge_partial_attention
# wrong: no validation: shapes that do not fit are broadcast or fail with another error
# must-lose: ring_attention_rejects_bad_input
# must-keep: merge_partial_attention_matches_full, merge_partial_attention_empty_parts, zigzag_blocks_balance
def merge_partial_attention(o1, lse1, o2, lse2):
    lse = torch.logaddexp(lse1, lse2)
    lse_safe = torch.where(lse == -math.inf, torch.zeros_like(lse), lse)
    w1, w2 = torch.exp(lse1 - lse_safe), torch.exp(lse2 - lse_safe)
    return w1[..., None] * o1 + w2[..., None] * o2, lse
