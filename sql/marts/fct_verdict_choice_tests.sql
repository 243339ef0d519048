-- Per study × design choice: its single-choice design pairs' McNemar and TOST verdicts, counted.
-- Family for Holm / Benjamini–Hochberg (p_holm, p_bh of stg_verdict_pairs): all of the study's
-- pairs, every choice. A pair without shared items (p null) counts as not significant and as
-- "inconclusive". equivalent, the choice's verdict: "yes" when every pair is equivalent (an
-- intersection–union test: valid at 5% without adjustment), "no" when at least one pair's 90%
-- CI lies wholly beyond the margin (not adjusted for the number of pairs), else "inconclusive".
create or replace view fct_verdict_choice_tests as
select study,
       choice,
       count(*) as n_pairs,
       count_if(below(p, 0.05)) as n_sig,
       count_if(below(p_holm, 0.05)) as n_sig_holm,
       count_if(below(p_bh, 0.05)) as n_sig_bh,
       max(margin) as margin,
       count_if(equivalent = 'yes') as n_equivalent,
       count_if(equivalent = 'no') as n_not_equivalent,
       count_if(equivalent = 'inconclusive') as n_inconclusive,
       case when count_if(equivalent = 'no') > 0 then 'no'
            when count_if(equivalent = 'yes') = count(*) then 'yes'
            else 'inconclusive' end as equivalent
from stg_verdict_pairs
group by study, choice;
