{{ config(severity='warn') }}

{#-
    Two different changes of one key with the same change sequence: the fold resolves them by
    arrival (the later one wins), which is deterministic but probably not what the source did.
    Duplicate deliveries of one change (same content) are not reported, nor are changes
    without a sequence (ordered by arrival alone). Compares the fingerprints that
    int_changes_checked keeps of every applied change (key, sequence, content hash, typed as
    the current-state tables type them), so the history is not typed again.
-#}

with

applied_changes as (
    select
        checked_changes.target_table,
        checked_changes.row_key,
        checked_changes.change_sequence,
        checked_changes.change_content,
        concat(checked_changes.landing_file, ':', cast(checked_changes.landing_position as string)) as landed_at_position
    from {{ ref('int_changes_checked') }} as checked_changes
    where checked_changes.change_content is not null
),

contents as (
    select
        applied_changes.target_table,
        applied_changes.row_key,
        applied_changes.change_sequence,
        count(distinct applied_changes.change_content) as distinct_changes,
        count(*) as deliveries,
        collect_set(applied_changes.landed_at_position) as landed_at_positions
    from applied_changes
    group by applied_changes.target_table, applied_changes.row_key, applied_changes.change_sequence
)

select *
from contents
where distinct_changes > 1
