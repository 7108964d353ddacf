{#-
    Current-state tables. The model file of one holds only `{{ cdc_current_state() }}`; its YAML
    (config.meta.cdc + columns) says which source table it follows and how. It is built by the
    cdc_current_state materialization (macros/materializations/cdc_current_state.sql) into:

      <model>__cdc_state   table, partitioned by _cdc_batch: the folded row states (typed, with
                           tombstones and versions). Batch 0 is the base; each run that has
                           new changes appends their fold as one more batch (a delta).
      <model>__cdc_rows    view: the state of every row, tombstones included: the base alone,
                           or the fold of base and deltas while there are deltas.
      <model>              view: the live rows, typed as declared, with the _cdc column.

    When the deltas reach var cdc_compact_after_batches, they are folded into the base. A run
    costs what its new changes cost (plus the compaction, every so many runs); a run with no
    new change for the table writes nothing.
-#}

{% macro cdc_current_state() %}
    {#- The model SQL: the new changes of this table, typed, folded into row states (one delta); no rows when there is none. -#}
    {%- if execute -%}
        {%- set target_table = cdc_target_table(model.name) -%}
        {%- set plan = cdc_state_plan(target_table) -%}
    {%- else -%}
        {#- parsing and linting: a stand-in registry entry, so that the SQL of a real table renders -#}
        {%- set target_table = {
            'name': model.name, 'source_in_key': false,
            'sources': [{'database': 'lint', 'schema': none, 'table': 'lint', 'database_pattern': none, 'table_pattern': none}],
            'key_columns': ['id'],
            'columns': [{'name': 'id', 'data_type': 'bigint', 'encoding': none},
                        {'name': 'amount', 'data_type': 'decimal(10,2)', 'encoding': none}],
        } -%}
        {#- every staging model (parsing infers the refs from this render) and key changes that move whole rows, so that every step renders -#}
        {%- set plan = {
            'incremental': false, 'loaded_after': none, 'has_new_changes': true, 'has_truncations': true,
            'staging_models': none, 'schema_names': none, 'moves_whole_rows': true,
        } -%}
    {%- endif -%}
    {%- set moves_whole_rows = plan.moves_whole_rows %}
    {%- if not plan.has_new_changes -%}
        {#- nothing to fold: the materialization runs no query (it creates a missing state from its schema), so
            none is rendered (a run with nothing landed: its 11 tables took 1.10-1.29 s instead of 1.34-1.48 s,
            2026-11-27) -#}
        {%- set nothing_to_fold -%}
    -- {{ cdc_no_new_changes_marker() }}
    select * except (_cdc_batch) from {{ cdc_state_relation(this) }} where false
        {%- endset -%}
        {{ return(nothing_to_fold) }}
    {%- endif %}
    {%- if plan.has_truncations %}
    -- {{ cdc_truncations_marker() }}
    {%- endif %}
    with

    -- rejected changes come too, carrying no state (int_changes_checked logs them)
    new_changes as (
        select typed_changes.*
        from (
            {{ cdc_typed_changes(
                target_table, plan.loaded_after, staging_models=plan.staging_models, schema_names=plan.schema_names,
                moves_whole_rows=moves_whole_rows,
            ) | indent(12) }}
        ) as typed_changes
    ),
    {%- set truncations_relation = 'new_truncations' if plan.has_truncations and target_table.history is not true else none %}
    {%- if truncations_relation %}

    -- the versions of the new truncations, read from staging: a truncation has no value to type,
    -- and the fold then reads the typing of the new changes once (cdc_fold_row_states)
    new_truncations as (
        select {{ cdc_change_version('staged_changes') | indent(8) }} as _cdc_truncated_before
        from (
            {{ cdc_staged_changes_of(target_table, plan.loaded_after, staging_models=plan.staging_models) | indent(12) }}
        ) as staged_changes
        where staged_changes.operation = 'truncate'
    ),
    {%- endif %}
    {%- if moves_whole_rows %}

    -- a key change that leaves columns out moves the whole row (cdc_moved_rows_resolved)
    resolved_changes as (
        select moved_rows.*
        from (
            {{ cdc_moved_rows_resolved(
                'new_changes', target_table, cdc_rows_relation(this) if plan.incremental else none,
                truncations=plan.has_truncations, truncations_relation=truncations_relation,
            ) | indent(12) }}
        ) as moved_rows
    ),
    {%- endif %}

    {%- if target_table.history is true %}

    -- a table with history keeps its changes (the materialization folds them): those that apply
    final as (
        select
            {%- for name in cdc_row_state_columns(target_table) if name != '_cdc_is_deleted' %}
            applied_changes.{{ cdc_quote(name) }}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ 'resolved_changes' if moves_whole_rows else 'new_changes' }} as applied_changes
        {{ cdc_keep_rows_where('applied_changes._cdc_last_change is not null') }}
    )
    {%- else %}

    final as (
        select folded_changes.*
        from (
            {{ cdc_fold_row_states(
                'resolved_changes' if moves_whole_rows else 'new_changes', target_table,
                truncations=plan.has_truncations, truncations_relation=truncations_relation,
            ) | indent(12) }}
        ) as folded_changes
    )
    {%- endif %}

    select * from final
{% endmacro %}


{% macro cdc_state_plan(target_table) %}
    {#-
        What this run of a current-state model does: {incremental, loaded_after,
        has_new_changes, has_truncations, staging_models, schema_names, moves_whole_rows}. Incremental when its state table
        exists and no full refresh was asked for; then only changes staged after the newest
        one in the state are read (loaded_after, a literal, or none while the state holds no
        change). One probe query over the staging partitions of the table's new changes
        (cdc_staged_sources) says whether there is any (it returns no row otherwise), whether one of them truncates the
        table, which staging models hold them (only those are read), and which field schema
        names their values carry (only those are decoded: cdc_schema_names_seen). When this
        run's staging noted every change staged since loaded_after (cdc_staged_sources_since),
        the plan reads that and runs no probe. With nothing
        new the probe's partitions are pruned and it costs what a query that stops at the
        first new change cost (cdc_any_change_staged_after, which this plan asked first until
        2026-11-29: a table with new changes paid both, 3-6 s of its +10% run). In a unit test,
        where refs are fixtures, or before staging is built: assume changes and truncations in
        every staging model, and any field schema.
    -#}
    {%- set incremental = execute and cdc_state_is_incremental() -%}
    {%- set source_tables = cdc_source_tables_of(target_table) -%}
    {#- the run found at its start that the table has seen everything staged for it, or that nothing was ever
        staged for its source tables (cdc_new_work): no query at all -#}
    {%- if (incremental and cdc_has_checked_everything_staged(model.name, source_tables)) or cdc_nothing_staged_for(source_tables) -%}
        {{ return({
            'incremental': incremental, 'loaded_after': none,
            'has_new_changes': false, 'has_truncations': false, 'staging_models': [], 'schema_names': {},
            'moves_whole_rows': false,
        }) }}
    {%- endif -%}
    {#- none when no change was ever applied: then every staged change of the table is new -#}
    {%- set loaded_after = cdc_watermark(cdc_state_relation(this), '_cdc_loaded_at') if incremental else none -%}
    {%- if not cdc_staging_is_built() -%}
        {{ return({
            'incremental': incremental, 'loaded_after': loaded_after,
            'has_new_changes': true, 'has_truncations': true, 'staging_models': none, 'schema_names': none,
            'moves_whole_rows': cdc_key_changes_move_whole_rows(none) | trim == 'true',
        }) }}
    {%- endif -%}
    {#- the table's own new changes, per source table (cdc_staged_sources): what this run's staging noted,
        when that is every change staged since loaded_after (cdc_staged_sources_since); else one probe -#}
    {%- set noted = cdc_staged_sources_since(loaded_after, source_tables) -%}
    {%- set checked_through = _cdc_checked_through_fact(model.name) if incremental else none -%}
    {%- set noted_since_check = cdc_staged_sources_since(checked_through, source_tables) if noted is none and checked_through else none -%}
    {%- if noted is not none -%}
        {%- set own_sources = _cdc_sources_claimed_by(target_table, noted) -%}
    {%- elif noted_since_check is not none and not _cdc_sources_claimed_by(target_table, noted_since_check) -%}
        {#- the table had seen everything staged before this run, and this run staged nothing of its own (its
            source table name's partition holds another database's changes): nothing new, as when nothing
            was staged at all (cdc_has_checked_everything_staged) -#}
        {%- set own_sources = [] -%}
    {%- else -%}
        {%- set reads = [] -%}
        {%- for model_name in var('cdc_staging_models') -%}
            {%- do reads.append({
                'staging_model': model_name, 'relation': ref(model_name),
                'where': _cdc_staged_changes_condition(target_table, 'staged_records', loaded_after),
            }) -%}
        {%- endfor -%}
        {%- set own_sources = cdc_staged_sources(reads) -%}
    {%- endif -%}
    {%- set staging_models = [] -%}
    {%- set truncating_models = [] -%}
    {%- set names_json = [] -%}
    {%- for source in own_sources -%}
        {%- if source.staging_model not in staging_models -%}
            {%- do staging_models.append(source.staging_model) -%}
        {%- endif -%}
        {%- do names_json.append(source.schema_names) -%}
        {%- if source.has_truncations and source.staging_model not in truncating_models -%}
            {%- do truncating_models.append(source.staging_model) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return({
        'incremental': incremental,
        'loaded_after': loaded_after,
        'has_new_changes': staging_models | length > 0,
        'has_truncations': truncating_models | length > 0,
        'staging_models': staging_models,
        'schema_names': cdc_schema_names_from_json(names_json),
        'moves_whole_rows': cdc_key_changes_move_whole_rows(staging_models) | trim == 'true',
    }) }}
{% endmacro %}


{% macro cdc_key_changes_move_whole_rows(staging_models) -%}
    {#-
        Renders true when changes from one of `staging_models` may change a key with an image
        that leaves columns out (var cdc_partial_image_staging_models): then the new key gets the
        whole old row (cdc_moved_rows_resolved), at the cost of one more window over the table's
        new changes. False when they are not known (none: a unit test, whose test of the rule
        overrides this macro, or staging not built, when there are no changes to move).
    -#}
    {%- if staging_models is not none and (staging_models | select('in', var('cdc_partial_image_staging_models', [])) | list) -%}
        true
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}


{% macro cdc_state_is_incremental() %}
    {#- True when the model's state table (and history table, if it asks for one) exists and no full refresh was asked for. -#}
    {%- if not execute or flags.FULL_REFRESH or (model.config.get('full_refresh') is true) -%}
        {{ return(false) }}
    {%- endif -%}
    {#- a table that asks for history and has none yet is built whole: the history needs every change -#}
    {%- set relations = [cdc_state_relation(this)] -%}
    {%- if cdc_target_table(model.name).history is true -%}
        {%- do relations.append(cdc_history_state_relation(this)) -%}
    {%- endif -%}
    {%- for relation in relations -%}
        {%- if adapter.get_relation(
            database=relation.database, schema=relation.schema, identifier=relation.identifier
        ) is none -%}
            {{ return(false) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(true) }}
{% endmacro %}


{% macro cdc_state_relation(relation) %}
    {#- The state table behind the current-state view `relation`. -#}
    {{ return(api.Relation.create(
        database=relation.database, schema=relation.schema, identifier=relation.identifier ~ '__cdc_state', type='table'
    )) }}
{% endmacro %}


{% macro cdc_rows_relation(relation) %}
    {#- The view of every row's state (tombstones included) behind the current-state view `relation`. -#}
    {{ return(api.Relation.create(
        database=relation.database, schema=relation.schema, identifier=relation.identifier ~ '__cdc_rows', type='view'
    )) }}
{% endmacro %}


{% macro cdc_no_new_changes_marker() -%}
    cdc: no new changes for this table
{%- endmacro %}


{% macro cdc_truncations_marker() -%}
    cdc: the new changes hold a truncation
{%- endmacro %}


{% macro cdc_rows_view_sql(target_table, state_relation, folded) %}
    {#- Every row's state: the base as stored, or (folded=true) the fold of base and deltas. -#}
    {%- if folded %}
    select {{ _cdc_quoted_names(cdc_row_state_columns(target_table)) }}
    from (
        {{ cdc_fold_row_states(state_relation, target_table) | indent(8) }}
    ) as row_states
    {%- else %}
    select {{ _cdc_quoted_names(cdc_row_state_columns(target_table)) }}
    from {{ state_relation }}
    {%- endif %}
{% endmacro %}


{% macro cdc_current_rows_view_sql(target_table, rows_relation) %}
    {#- The live rows, typed as declared, with the _cdc column. -#}
    select
        {%- for column in target_table.columns %}
        row_states.{{ cdc_quote(column.name) }},
        {%- endfor %}
        {{ cdc_change_column('row_states._cdc_last_change', 'row_states._cdc_loaded_at') | indent(8) }} as _cdc
    from {{ rows_relation }} as row_states
    where not row_states._cdc_is_deleted
{% endmacro %}


{% macro cdc_change_column(change, loaded_at) -%}
    {#- The _cdc column of a current-state row or a version: of the change `change` (a _cdc_last_change struct), staged at `loaded_at`. -#}
    named_struct(
        'operation', {{ change }}.operation,
        'change_sequence', {{ change }}.version.sequence,
        'commit_timestamp', {{ change }}.commit_timestamp,
        'loaded_at', {{ loaded_at }}
    )
{%- endmacro %}


{% macro _cdc_quoted_names(names) -%}
    {%- for name in names %}{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor -%}
{%- endmacro %}


{% macro _cdc_sources_claimed_by(target_table, sources) %}
    {#- The sources (cdc_staged_sources) that are the registry entry `target_table`'s own: it claims them and names their table name. -#}
    {%- set own = [] -%}
    {%- for source in sources if target_table.name in source.claimed_by and target_table.name in source.named_by -%}
        {%- do own.append(source) -%}
    {%- endfor -%}
    {{ return(own) }}
{% endmacro %}
