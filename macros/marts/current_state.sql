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
    {#-
        The model SQL: the new changes of this table, typed, folded into row states (one delta).
        Its first line records the run's plan (cdc_state_plan) for the materialization, which
        runs the same two steps with the typed changes cached between them, so that the
        rejections are logged from them without typing the changes again.
    -#}
    {%- if execute -%}
        {%- set target_table = cdc_target_table(model.name) -%}
        {%- set plan = cdc_state_plan(target_table) -%}
    {%- else -%}
        {%- set target_table = fromjson(cdc_parse_time_target_table(model.name)) -%}
        {%- set plan = {
            'incremental': false, 'loaded_after': none, 'loaded_through': none, 'has_new_changes': true,
            'has_truncations': true, 'staging_models': none,
        } -%}
    {%- endif %}
    -- {{ cdc_plan_marker() }} {{ tojson(plan) }}
    with

    -- rejected changes come too, carrying no state (the materialization logs them)
    new_changes as (
        {{ cdc_new_changes(target_table, plan) | indent(8) }}
    ),

    final as (
        select folded_changes.*
        from (
            {{ cdc_fold_row_states('new_changes', target_table, truncations=plan.has_truncations) | indent(12) }}
        ) as folded_changes
    )

    select * from final
{% endmacro %}


{% macro cdc_parse_time_target_table(name) -%}
    {#- A stand-in registry entry, as JSON (read it with fromjson), for parsing and linting, when the registry is not known yet, so that the SQL of a real table renders and its refs are seen. -#}
    {{ tojson({
        'name': name, 'source_database': 'lint', 'source_schema': none, 'source_table': 'lint',
        'key_columns': ['id'],
        'columns': [{'name': 'id', 'data_type': 'bigint', 'encoding': none},
                    {'name': 'amount', 'data_type': 'decimal(10,2)', 'encoding': none}],
    }) }}
{%- endmacro %}


{% macro cdc_new_changes(target_table, plan) %}
    {#-
        The new changes of one table (as `plan` says: staged after plan.loaded_after, in
        plan.staging_models), typed, in row-state shape, with what the rejection log keeps of
        a rejected change (reason, lineage, the change as JSON; null for an applied change).
        The first table (by name) of a source table name also gets the changes of that name
        that no table claims (another database or schema), rejected as unknown_table.
    -#}
    {%- set claimants = cdc_claimants(target_table) if execute else none -%}
    select
        {%- for column in target_table.columns %}
        typed_changes.{{ cdc_quote(column.name) }},
        {%- endfor %}
        typed_changes._cdc_reset,
        typed_changes._cdc_column_versions,
        typed_changes._cdc_last_change,
        typed_changes._cdc_loaded_at,
        typed_changes._cdc_truncated_before,
        typed_changes.rejection_reason,
        typed_changes.rejection_detail,
        typed_changes.raw_record_id,
        typed_changes.row_index,
        typed_changes.flavour,
        typed_changes.source_database,
        typed_changes.source_schema,
        typed_changes.source_table,
        typed_changes.operation,
        if(
            typed_changes.rejection_reason is null,
            null,
            to_json(
                named_struct(
                    'operation', typed_changes.operation,
                    'key', typed_changes.key_image,
                    'before', typed_changes.before_image,
                    'after', typed_changes.after_image
                )
            )
        ) as rejected_change,
        typed_changes.landing_file,
        typed_changes.landing_position,
        typed_changes.kafka_topic,
        typed_changes.kafka_partition,
        typed_changes.kafka_offset,
        typed_changes.loaded_at
    from (
        {{ cdc_typed_changes(target_table, plan.loaded_after, claimants, plan.staging_models) | indent(8) }}
    ) as typed_changes
{% endmacro %}


{% macro cdc_change_rejections(new_changes_relation, target_table) %}
    {#- The rows of the rejection log among new changes (cdc_new_changes): one per rejected change, in the columns of <model>__cdc_rejections. -#}
    select
        new_changes.raw_record_id,
        new_changes.row_index,
        new_changes.flavour,
        new_changes.source_database,
        new_changes.source_schema,
        new_changes.source_table,
        new_changes.operation,
        if(new_changes.rejection_reason = 'unknown_table', null, {{ cdc_sql_string(target_table.name) }}) as target_table,
        new_changes.rejection_reason,
        new_changes.rejection_detail,
        new_changes.rejected_change,
        new_changes.landing_file,
        new_changes.landing_position,
        new_changes.kafka_topic,
        new_changes.kafka_partition,
        new_changes.kafka_offset,
        new_changes.loaded_at
    from {{ new_changes_relation }} as new_changes
    {{ cdc_keep_rows_where('new_changes.rejection_reason is not null') }}
{% endmacro %}


{% macro cdc_claimants(target_table) %}
    {#- The registry entries of target_table's source table name when target_table is the first of them by name (it logs the changes of that name none of them claims); else none. -#}
    {%- set claimants = cdc_target_tables() | selectattr('source_table', 'equalto', target_table.source_table) | list -%}
    {{ return(claimants if claimants and claimants[0].name == target_table.name else none) }}
{% endmacro %}


{% macro cdc_plan_marker() -%}
    cdc plan:
{%- endmacro %}


{% macro cdc_plan_in(sql) %}
    {#- The plan that cdc_current_state recorded in a model's SQL (see cdc_state_plan). -#}
    {%- for line in sql.splitlines() if line.strip().startswith('-- ' ~ cdc_plan_marker()) -%}
        {{ return(fromjson(line.strip()[('-- ' ~ cdc_plan_marker()) | length:])) }}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(
        "model '" ~ model.name ~ "' is materialized as cdc_current_state but its SQL has no '-- "
        ~ cdc_plan_marker() ~ "' line: expected the model file to hold only {{ cdc_current_state() }}"
    ) }}
{% endmacro %}


{% macro cdc_state_plan(target_table) %}
    {#-
        What this run of a current-state model does: {incremental, loaded_after,
        loaded_through, has_new_changes, has_truncations, staging_models}. Incremental when
        its state table exists and no full refresh was asked for; then only changes staged
        after the state's watermark are read (loaded_after, a literal, or none while nothing
        was folded; see cdc_folded_through). One probe query over the staging partition says
        whether any change is new, the newest staging time among them (loaded_through, the
        next watermark), whether one of them truncates the table, and which staging models
        hold them (only those are read). In a unit test, where refs are fixtures, or before
        staging is built: assume changes and truncations in every staging model.
    -#}
    {%- set incremental = execute and cdc_state_is_incremental() -%}
    {%- set loaded_after = cdc_folded_through(cdc_state_relation(this)) if incremental else none -%}
    {%- if not cdc_staging_is_built() -%}
        {{ return({
            'incremental': incremental, 'loaded_after': loaded_after, 'loaded_through': none,
            'has_new_changes': true, 'has_truncations': true, 'staging_models': none,
        }) }}
    {%- endif -%}
    {%- set claimants = cdc_claimants(target_table) -%}
    {%- set probe -%}
        {%- for model_name in var('cdc_staging_models') %}
        select
            '{{ model_name }}' as staging_model,
            coalesce(max(staged_records.operation = 'truncate'), false) as has_truncations,
            cast(max(staged_records.loaded_at) as string) as loaded_through
        from {{ ref(model_name) }} as staged_records
        where {{ _cdc_staged_changes_condition(target_table, 'staged_records', loaded_after, claimants) | indent(8) }}
        having count(*) > 0
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- endfor %}
    {%- endset -%}
    {%- set staging_models = [] -%}
    {%- set truncating_models = [] -%}
    {%- set loaded_through = [] -%}
    {%- for staging_model, has_truncations, model_loaded_through in run_query(probe).rows -%}
        {%- do staging_models.append(staging_model) -%}
        {%- do loaded_through.append(model_loaded_through) -%}
        {%- if has_truncations -%}
            {%- do truncating_models.append(staging_model) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return({
        'incremental': incremental,
        'loaded_after': loaded_after,
        'loaded_through': (loaded_through | max) if loaded_through else none,
        'has_new_changes': staging_models | length > 0,
        'has_truncations': truncating_models | length > 0,
        'staging_models': staging_models,
    }) }}
{% endmacro %}


{% macro cdc_folded_through(state_relation) %}
    {#-
        The state's watermark, as a timestamp literal: every change staged up to it has been
        folded into the state (or logged as rejected). Kept in the table property
        cdc.folded_through, set after each run's insert; a state table without it (built by
        an earlier version) gives the newest _cdc_loaded_at it holds; none when empty. A run
        stopped between its insert and the property reads those changes again next time,
        which the fold's idempotency and the rejections' overwrite make harmless.
    -#}
    {%- set property = run_query("show tblproperties " ~ state_relation ~ " ('cdc.folded_through')").columns[1].values()[0] -%}
    {%- if property is not none and (property | string)[:1].isdigit() -%}
        {{ return("timestamp'" ~ property ~ "'") }}
    {%- endif -%}
    {{ return(cdc_watermark(state_relation, '_cdc_loaded_at')) }}
{% endmacro %}


{% macro cdc_rejections_relation(relation) %}
    {#- The table of rejected changes (<model>__cdc_rejections) behind the current-state view `relation`. -#}
    {{ return(api.Relation.create(
        database=relation.database, schema=relation.schema, identifier=relation.identifier ~ '__cdc_rejections', type='table'
    )) }}
{% endmacro %}


{% macro cdc_rejections_table_ddl(rejections_relation, if_not_exists=false) %}
    {#-
        Creates a table of rejected changes. Partitioned by staging run (loaded_at) and written
        with dynamic partition overwrite, so that a run writing the rejections of the runs it
        reads replaces exactly those partitions: a rerun after a crash logs nothing twice.
    -#}
    create table {{ 'if not exists ' if if_not_exists }}{{ rejections_relation }} (
        raw_record_id string,
        row_index int,
        flavour string,
        source_database string,
        source_schema string,
        source_table string,
        operation string,
        target_table string,
        rejection_reason string,
        rejection_detail string,
        rejected_change string,
        landing_file string,
        landing_position bigint,
        kafka_topic string,
        kafka_partition int,
        kafka_offset bigint,
        loaded_at timestamp
    )
    using parquet
    partitioned by (loaded_at)
    options ('partitionOverwriteMode' = 'dynamic')
{% endmacro %}


{% macro cdc_rejections_relations() %}
    {#- The rejection tables of every current-state model of the project (from the graph; none at parse time or in a unit test). -#}
    {%- set relations = [] -%}
    {%- if execute -%}
        {%- for node in (graph.get('nodes') or {}).values()
            if node.resource_type == 'model' and node.config.materialized == 'cdc_current_state'
            and (node.config.get('meta') or {}).get('cdc') -%}
            {%- do relations.append(cdc_rejections_relation(api.Relation.create(
                database=node.database, schema=node.schema, identifier=node.alias
            ))) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(relations | sort(attribute='identifier')) }}
{% endmacro %}


{% macro create_rejections_tables() %}
    {#- on-run-start: creates the rejection table of every current-state model that has none yet, so that the rejection log (a view over them) can be built before the tables are. -#}
    {%- if execute -%}
        {%- set schemas = [] -%}
        {%- for relation in cdc_rejections_relations() -%}
            {%- if relation.schema not in schemas -%}
                {%- do run_query('create schema if not exists ' ~ relation.schema) -%}
                {%- do schemas.append(relation.schema) -%}
            {%- endif -%}
            {%- if adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is none -%}
                {%- do run_query(cdc_rejections_table_ddl(relation, if_not_exists=true)) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    select 1
{% endmacro %}


{% macro cdc_state_is_incremental() %}
    {#- True when the model's state table exists and no full refresh was asked for. -#}
    {%- if not execute or flags.FULL_REFRESH or (model.config.get('full_refresh') is true) -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set state_relation = cdc_state_relation(this) -%}
    {{ return(adapter.get_relation(
        database=state_relation.database, schema=state_relation.schema, identifier=state_relation.identifier
    ) is not none) }}
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
        named_struct(
            'operation', row_states._cdc_last_change.operation,
            'change_sequence', row_states._cdc_last_change.version.sequence,
            'commit_timestamp', row_states._cdc_last_change.commit_timestamp,
            'loaded_at', row_states._cdc_loaded_at
        ) as _cdc
    from {{ rows_relation }} as row_states
    where not row_states._cdc_is_deleted
{% endmacro %}


{% macro _cdc_quoted_names(names) -%}
    {%- for name in names %}{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor -%}
{%- endmacro %}
