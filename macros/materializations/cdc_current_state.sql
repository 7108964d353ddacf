{% materialization cdc_current_state, adapter='spark' %}
    {#-
        Builds a current-state table (see macros/marts/current_state.sql) from the model SQL
        of cdc_current_state, run in two steps: the run's new changes are typed once and
        cached; their rejections replace the staging runs they came from in
        <model>__cdc_rejections; their fold is appended to <model>__cdc_state as one batch (or
        builds it whole on the first run and on --full-refresh), and the state's watermark
        moves on. Then the deltas are folded into the base when there are var
        cdc_compact_after_batches of them, and the views <model>__cdc_rows and <model> point
        at the state. Every write is idempotent, so a run stopped at any point and run again
        gives the same state and logs each rejection once. A run with no new change writes
        nothing.
    -#}
    {%- set target_table = cdc_target_table(model.name) -%}
    {%- set target_relation = this.incorporate(type='view') -%}
    {%- set state_relation = cdc_state_relation(this) -%}
    {%- set rows_relation = cdc_rows_relation(this) -%}
    {%- set rejections_relation = cdc_rejections_relation(this) -%}
    {%- set compact_after = var('cdc_compact_after_batches') | int -%}
    {%- if compact_after < 1 -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_compact_after_batches is " ~ var('cdc_compact_after_batches') ~ ": expected a whole number of at least 1"
        ) }}
    {%- endif -%}
    {%- set plan = cdc_plan_in(sql) -%}
    {%- set incremental = cdc_state_is_incremental() -%}
    {%- set existing_relation = load_cached_relation(this) -%}

    {{ run_hooks(pre_hooks) }}

    {%- if not incremental %}
        {#- Created from their declared schemas, so that a table nothing was staged for yet costs no query plan. -#}
        {% call statement('drop_state') -%}
            drop table if exists {{ state_relation }}
        {%- endcall %}
        {% call statement('create_state') -%}
            create table {{ state_relation }} (
                {{- cdc_row_state_schema(target_table) | indent(16) }},
                _cdc_batch int
            )
            using parquet
            partitioned by (_cdc_batch)
        {%- endcall %}
        {% call statement('drop_rejections') -%}
            drop table if exists {{ rejections_relation }}
        {%- endcall %}
        {% call statement('create_rejections') -%}
            {{ cdc_rejections_table_ddl(rejections_relation) }}
        {%- endcall %}
        {%- set batches = [] -%}
    {%- else %}
        {% call statement('create_rejections') -%}
            {{ cdc_rejections_table_ddl(rejections_relation, if_not_exists=true) }}
        {%- endcall %}
        {%- set batches = _cdc_state_batches(state_relation) -%}
    {%- endif %}

    {%- if plan.has_new_changes %}
        {%- set next_batch = ((batches | max) + 1) if batches else 0 -%}
        {%- do _cdc_apply_new_changes(target_table, plan, state_relation, rejections_relation, next_batch) -%}
        {%- do batches.append(next_batch) -%}
        {#- A view's text must fit the metastore (Derby keeps at most 32,700 characters): a table
            too wide for a folded view has its deltas folded into the base at once. -#}
        {%- set folded_view_too_long = cdc_rows_view_sql(target_table, state_relation, true) | length
            > var('cdc_max_view_text_length') | int -%}
        {%- if batches | length > compact_after or (batches | length > 1 and folded_view_too_long) -%}
            {%- do _cdc_compact_state(target_table, state_relation, batches) -%}
            {%- set batches = [0] -%}
        {%- endif -%}
    {%- else %}
        {% call noop_statement('main', 'no new changes') -%}{%- endcall %}
    {%- endif %}

    {#- The views change only when the state changed shape (deltas appeared or went) or are missing. -#}
    {%- set folded = batches | length > 1 -%}
    {%- set existing_rows = load_cached_relation(rows_relation) -%}
    {%- if not incremental or plan.has_new_changes or existing_rows is none or existing_relation is none
        or existing_relation.type != 'view' -%}
        {%- if existing_relation is not none and existing_relation.type != 'view' -%}
            {%- do adapter.drop_relation(existing_relation) -%}
        {%- endif -%}
        {% call statement('rows_view') -%}
            create or replace view {{ rows_relation }} as
            {{ cdc_rows_view_sql(target_table, state_relation, folded) }}
        {%- endcall %}
        {% call statement('current_rows_view') -%}
            create or replace view {{ target_relation }} as
            {{ cdc_current_rows_view_sql(target_table, rows_relation) }}
        {%- endcall %}
    {%- endif -%}

    {{ run_hooks(post_hooks) }}
    {% do persist_docs(target_relation, model) %}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{% macro _cdc_apply_new_changes(target_table, plan, state_relation, rejections_relation, batch) %}
    {#-
        The run's new changes, typed once (cdc_new_changes) into a cached temporary view that
        two writes read: first the rejections (replacing the partitions of the staging runs
        read, so a rerun writes them once), then the fold, as state batch `batch`; then the
        watermark. Spark does not share one query's result between two statements unless it
        is cached: without it each write would type the changes again.
    -#}
    {%- set new_changes = 'cdc_new_changes__' ~ model.name | replace('`', '') -%}
    {% do run_query('uncache table if exists `' ~ new_changes ~ '`') %}
    {% call statement('type_new_changes') -%}
        cache table `{{ new_changes }}` options ('storageLevel' 'MEMORY_AND_DISK') as
        {{ cdc_new_changes(target_table, plan) }}
    {%- endcall %}
    {% call statement('log_rejections') -%}
        insert overwrite table {{ rejections_relation }} partition (loaded_at)
        {{ cdc_change_rejections('`' ~ new_changes ~ '`', target_table) }}
    {%- endcall %}
    {% call statement('main') -%}
        insert into {{ state_relation }} partition (_cdc_batch = {{ batch }})
        select * from (
            {{ cdc_fold_row_states('`' ~ new_changes ~ '`', target_table, truncations=plan.has_truncations) | indent(12) }}
        ) as folded_changes
    {%- endcall %}
    {%- if plan.loaded_through %}
        {% do run_query("alter table " ~ state_relation ~ " set tblproperties ('cdc.folded_through' = '" ~ plan.loaded_through ~ "')") %}
    {%- endif %}
    {% do run_query('uncache table if exists `' ~ new_changes ~ '`') %}
    {% do run_query('drop view if exists `' ~ new_changes ~ '`') %}
{% endmacro %}


{% macro _cdc_state_batches(state_relation) %}
    {#- The _cdc_batch partitions of a state table, as numbers (metadata only: no Spark job). -#}
    {%- set batches = [] -%}
    {%- for row in run_query('show partitions ' ~ state_relation) -%}
        {%- do batches.append(row[0].split('=')[1] | int) -%}
    {%- endfor -%}
    {{ return(batches if batches else [0]) }}
{% endmacro %}


{% macro _cdc_compact_state(target_table, state_relation, batches) %}
    {#-
        Folds every batch of the state into the base (batch 0). The fold is written to a side
        table first (Spark cannot overwrite a table it reads), then replaces batch 0, then the
        deltas are dropped. Stopped anywhere, the state still folds to the same rows: the base
        may then hold changes a delta holds too, and folding them twice changes nothing.
    -#}
    {%- set compacted = api.Relation.create(
        database=state_relation.database, schema=state_relation.schema,
        identifier=state_relation.identifier ~ '__compacting', type='table'
    ) -%}
    {%- set deltas = [] -%}
    {%- for batch in batches if batch != 0 -%}
        {%- do deltas.append('partition (_cdc_batch = ' ~ batch ~ ')') -%}
    {%- endfor -%}
    {% do run_query('drop table if exists ' ~ compacted) %}
    {% call statement('compact_fold') -%}
        create table {{ compacted }} using parquet as
        {{ cdc_fold_row_states(state_relation, target_table) }}
    {%- endcall %}
    {% call statement('compact_base') -%}
        insert overwrite table {{ state_relation }} partition (_cdc_batch = 0)
        select * from {{ compacted }}
    {%- endcall %}
    {% do run_query('alter table ' ~ state_relation ~ ' drop if exists ' ~ deltas | join(', ')) %}
    {% do run_query('drop table if exists ' ~ compacted) %}
{% endmacro %}
