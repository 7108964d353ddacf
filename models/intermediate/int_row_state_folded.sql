{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['target_table', 'key_bucket'],
) }}

{#-
    The state of every row of every target table, tombstones included. A run folds the new
    changes together with the stored state of the key buckets they touch (and of every bucket
    of a table that got a new truncation) and rewrites only those buckets.
-#}

with

change_events as (
    select *
    from {{ ref('int_change_events_keyed') }}
    where
        rejection_reason is null
        and change_kind != 'truncate_table'
        and {{ cdc_is_new_record() }}
),

table_truncations as (
    select * from {{ ref('int_table_truncations_logged') }}
),

{% if is_incremental() %}
stored_row_states as (
    select * from {{ this }}
),

{% endif %}
latest_truncations as (
    select
        table_truncations.target_table,
        max(table_truncations.truncate_version) as truncate_version,
        max(table_truncations.loaded_at) as loaded_at
    from table_truncations
    group by table_truncations.target_table
),

new_changes as (
    select
        change_events.target_table,
        change_events.key_bucket,
        change_events.row_key,
        change_events.change_kind,
        change_events.change_version,
        change_events.row_image,
        named_struct(
            'version', change_events.change_version,
            'operation', change_events.operation,
            'commit_timestamp', change_events.commit_timestamp
        ) as last_change,
        change_events.loaded_at
    from change_events
),

{% if is_incremental() %}
touched_buckets as (
    select distinct
        new_changes.target_table,
        new_changes.key_bucket
    from new_changes

    union

    select distinct
        stored_row_states.target_table,
        stored_row_states.key_bucket
    from stored_row_states
    inner join latest_truncations
        on stored_row_states.target_table = latest_truncations.target_table
    where {{ cdc_is_new_record('latest_truncations.loaded_at') }}
),

touched_row_states as (
    select stored_row_states.*
    from stored_row_states
    left semi join touched_buckets
        on
            stored_row_states.target_table = touched_buckets.target_table
            and stored_row_states.key_bucket = touched_buckets.key_bucket
),

stored_changes as (
    {{ cdc_row_state_as_changes('touched_row_states') }}
),

{% endif %}
all_changes as (
    select * from new_changes
    {%- if is_incremental() %}

    union all

    select * from stored_changes
    {%- endif %}
),

grouped_changes as (
    {{ cdc_fold_group_changes('all_changes') }}
),

reset_changes as (
    {{ cdc_fold_apply_truncations('grouped_changes', 'latest_truncations') }}
),

row_states as (
    {{ cdc_fold_row_states('reset_changes') }}
),

final as (
    select * from row_states
)

select * from final
