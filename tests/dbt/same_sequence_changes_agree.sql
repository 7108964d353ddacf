{{ config(severity='warn') }}

{#-
    Two different changes of one key with the same change sequence: the fold resolves them by
    arrival (the later one wins), which is deterministic but probably not what the source did.
    Duplicate deliveries of one change (same content) are not reported.
-#}

with

applied_changes as (
    select *
    from {{ ref('int_change_events_keyed') }}
    where rejection_reason is null and row_key is not null
),

contents as (
    select
        applied_changes.target_table,
        applied_changes.row_key,
        applied_changes.change_version.sequence as change_sequence,
        count(distinct xxhash64(applied_changes.change_kind, to_json(applied_changes.row_image))) as distinct_changes,
        count(*) as deliveries,
        collect_set(
            concat(applied_changes.landing_file, ':', cast(applied_changes.landing_position as string))
        ) as landed_at_positions
    from applied_changes
    group by applied_changes.target_table, applied_changes.row_key, applied_changes.change_version.sequence
)

select *
from contents
where distinct_changes > 1
