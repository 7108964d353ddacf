{#-
    What a run has to do, found once at its start (on-run-start: cdc_find_new_work) instead of
    by every model: which landing files each staging model has ingested and which of its
    landings hold a new one, and, from the staging tables' partitions (metadata, no Spark
    job), up to which staging time each current-state table and the log of checked changes
    have already seen everything. A model reads these facts through cdc_new_work(); a model
    that has nothing new then runs no query at all (measured on the sample's nothing-new
    `dbt run`: 27 staging queries and 2-3 per current-state table before). Each staging model
    that writes adds which source tables it staged changes for (cdc_note_staged_sources), so
    that the tables and the log read that summary instead of each aggregating the staged
    changes again (cdc_staged_sources_since).

    The facts stay true for the whole run: a staging table is written only by its own model,
    and the staging models run before everything that reads them. A fact a model cannot
    trust (no facts: a unit test, a table missing at the start; on a full refresh, all but
    what was staged) makes it find out for itself, as before. Kept in the `graph` context of this dbt invocation
    (keyed by its invocation_id), so every model of the run, on every thread and target,
    sees them.
-#}

{% macro cdc_find_new_work() %}
    {#- on-run-start hook: finds the run's new work (see above); runs no statement itself. -#}
    {#- only commands that build models need it: dbt test, seed or snapshot start without it -#}
    {%- if not execute or flags.WHICH not in ('run', 'build') -%}
        {{ return('') }}
    {%- endif -%}
    {%- set known = _cdc_existing_staging_models() -%}
    {#- the staging models whose table exists; a missing one holds nothing staged before this run -#}
    {%- set staging = known | rejectattr('relation', 'none') | list -%}
    {#- each staging model's partitions: {source_table_partition, loaded_at} (metadata, no Spark job) -#}
    {%- for model in staging -%}
        {%- do model.update({'partitions': _cdc_partitions(model.relation)}) -%}
    {%- endfor -%}
    {%- set every_model_known = known | length == var('cdc_staging_models') | length -%}
    {%- set facts = {
        'invocation_id': invocation_id,
        'ingested_files': {},
        'landings_to_read': {},
        'staged_through': _cdc_staged_through(staging) if every_model_known else none,
        'checked_through': {},
        'staged_before_run': _cdc_staged_before_run(known) if every_model_known else none,
        'staged_sources': {},
    } -%}
    {#- a full refresh reads every landed file and types every staged change again: only what was
        staged is a fact (the partitions found now, and those this run's staging writes, may hold more
        than is left: a table they name probes for itself) -#}
    {%- if not flags.FULL_REFRESH -%}
        {%- if staging | length > 0 -%}
            {%- do _cdc_find_new_landed_files(staging, facts) -%}
        {%- endif -%}
        {%- do _cdc_find_checked_through(facts) -%}
    {%- endif -%}
    {%- do graph.update({'_cdc_new_work': facts}) -%}
    {{ return('') }}
{% endmacro %}


{% macro cdc_new_work() %}
    {#-
        The facts cdc_find_new_work found at the start of this run, or none where a model must
        find out for itself: while parsing, in a unit test, or when the run did not find them.
    -#}
    {%- if not execute or model.resource_type == 'unit_test' -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set facts = graph.get('_cdc_new_work') -%}
    {{ return(facts if facts and facts.invocation_id == invocation_id else none) }}
{% endmacro %}


{% macro cdc_has_checked_everything_staged(name, source_tables=none) %}
    {#-
        True when this run's facts say that the model `name` (a current-state table, or
        int_changes_checked) has already seen every record staged for `source_tables` (their
        staging partitions: lower-case source table names; none: every table), including what
        the staging models of this run staged (cdc_note_staged_partitions: they run before
        it). False whenever that is not known.
    -#}
    {%- set facts = cdc_new_work() -%}
    {%- if facts is none or facts.staged_through is none or name not in facts.checked_through -%}
        {{ return(false) }}
    {%- endif -%}
    {#- staged_through includes what the staging models of this run staged (they ran before) -#}
    {%- set seen = facts.checked_through[name] -%}
    {%- set staged = cdc_staged_through(source_tables) -%}
    {{ return(seen is not none and (staged is none or staged <= seen)) }}
{% endmacro %}


{% macro cdc_nothing_staged_for(source_tables=none) %}
    {#-
        True when this run's facts say that no record was ever staged for `source_tables`
        (their staging partitions: lower-case source table names; none: every table), this
        run's staging included. False whenever that is not known.
    -#}
    {%- set facts = cdc_new_work() -%}
    {{ return(facts is not none and facts.staged_through is not none and cdc_staged_through(source_tables) is none) }}
{% endmacro %}


{% macro cdc_staged_through(source_tables=none) %}
    {#-
        The newest staging time (loaded_at, as text) of the staging partitions of
        `source_tables` (lower-case source table names; none: every partition): those found at
        the start of this run and those its staging models wrote since
        (cdc_note_staged_partitions); none when nothing of theirs is staged or the facts are
        not known. A name
        Hive would escape in a partition path counts as every partition.
    -#}
    {%- set facts = cdc_new_work() -%}
    {%- if facts is none or facts.staged_through is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set by_table = facts.staged_through -%}
    {%- set names = [] -%}
    {%- for name in source_tables or [] -%}
        {%- do names.append(name if name is string and modules.re.fullmatch('[a-z0-9_$.-]+', name) else none) -%}
    {%- endfor -%}
    {%- set newest = namespace(value=none) -%}
    {%- for table, loaded_at in by_table.items() if source_tables is none or none in names or table in names -%}
        {%- if newest.value is none or loaded_at > newest.value -%}
            {%- set newest.value = loaded_at -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(newest.value) }}
{% endmacro %}


{% macro cdc_note_staged_partitions(relation) %}
    {#-
        After a staging model (var cdc_staging_models) wrote `relation`, adds its partitions to
        this run's facts (staged_through), so that a table that runs later knows whether its
        source tables got anything new. Metadata only (show partitions). Nothing for another
        model, or when the run has no facts.
    -#}
    {%- set facts = cdc_new_work() -%}
    {%- if facts is none or facts.staged_through is none or model.name not in var('cdc_staging_models') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- do _cdc_add_newest_staged(facts.staged_through, _cdc_partitions(relation)) -%}
{% endmacro %}


{% macro cdc_note_staged_sources(relation, rebuilt, wrote) %}
    {#-
        After a staging model (var cdc_staging_models) ran, adds to this run's facts which
        source tables it staged changes for in this run (cdc_staged_sources over its rows of
        this run's staging time: one query, none when it wrote nothing), and whether its table
        was created in the run (then it holds this run's rows only). cdc_staged_sources_since
        reads them. Nothing for another model, when the run has no facts, or when it builds no
        current-state table and not int_changes_checked (`dbt run --select staging`): no one
        would read the note.
    -#}
    {%- set facts = cdc_new_work() -%}
    {%- if facts is none or facts.staged_before_run is none or model.name not in var('cdc_staging_models') -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set readers = ['model.' ~ project_name ~ '.int_changes_checked'] -%}
    {%- for target_table in cdc_target_tables() -%}
        {%- do readers.append('model.' ~ project_name ~ '.' ~ target_table.name) -%}
    {%- endfor -%}
    {%- if not (selected_resources | select('in', readers) | list) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set sources = [] -%}
    {%- if wrote -%}
        {%- set sources = cdc_staged_sources([{
            'staging_model': model.name, 'relation': relation, 'where': 'staged_records.loaded_at = ' ~ cdc_loaded_at(),
        }]) -%}
    {%- endif -%}
    {%- do facts.staged_sources.update({model.name: {'rebuilt': rebuilt, 'sources': sources}}) -%}
{% endmacro %}


{% macro cdc_staged_sources_since(loaded_after=none, source_tables=none) %}
    {#-
        The source tables with changes staged after `loaded_after` (a timestamp literal; none:
        any change) in the staging partitions of `source_tables` (lower-case source table
        names; none: every partition), as cdc_staged_sources gives them, from this run's facts
        alone: what each staging model noted it staged in this run (cdc_note_staged_sources).
        None when the facts cannot tell: a staging model whose table this run did not create
        held, before the run, a change of those partitions staged after `loaded_after`.
        Then the caller aggregates the staged changes itself.
    -#}
    {%- set facts = cdc_new_work() -%}
    {%- if facts is none or facts.staged_before_run is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set after = loaded_after[10:-1] if loaded_after else none -%}
    {%- set names = [] -%}
    {%- for name in source_tables or [] -%}
        {%- do names.append(name if name is string and modules.re.fullmatch('[a-z0-9_$.-]+', name) else none) -%}
    {%- endfor -%}
    {%- set sources = [] -%}
    {%- for model_name in var('cdc_staging_models') -%}
        {%- set noted = facts.staged_sources.get(model_name) -%}
        {%- if noted is none or not noted.rebuilt -%}
            {%- for table, newest in facts.staged_before_run[model_name].items()
                if (source_tables is none or none in names or table in names) and (after is none or newest > after) -%}
                {{ return(none) }}
            {%- endfor -%}
        {%- endif -%}
        {%- do sources.extend(noted.sources if noted is not none else []) -%}
    {%- endfor -%}
    {{ return(sources) }}
{% endmacro %}


{% macro _cdc_checked_through_fact(name) %}
    {#- The staging time up to which the model `name` had seen every staged record at the start of this run (its cdc.checked_through, cdc_new_work), as a timestamp literal; none when not known. -#}
    {%- set facts = cdc_new_work() -%}
    {%- set seen = facts.checked_through.get(name) if facts is not none else none -%}
    {{ return("timestamp'" ~ seen ~ "'" if seen else none) }}
{% endmacro %}


{% macro _cdc_staged_before_run(known) %}
    {#- {staging model: {staging partition: newest loaded_at as text}} of the staging models `known` (_cdc_existing_staging_models) at the start of the run. -#}
    {%- set before = {} -%}
    {%- for model in known -%}
        {%- set newest = {} -%}
        {%- do _cdc_add_newest_staged(newest, model.partitions if model.relation is not none else []) -%}
        {%- do before.update({model.name: newest}) -%}
    {%- endfor -%}
    {{ return(before) }}
{% endmacro %}


{% macro _cdc_add_newest_staged(newest, partitions) %}
    {#- Raises newest {source_table_partition: loaded_at as text} to the staging partitions `partitions` (from _cdc_partitions). -#}
    {%- for partition in partitions -%}
        {%- set table = partition.source_table_partition -%}
        {%- if table not in newest or partition.loaded_at > newest[table] -%}
            {%- do newest.update({table: partition.loaded_at}) -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}


{% macro cdc_record_checked_through(relation) %}
    {#-
        SQL that records on `relation` (table property cdc.checked_through) that its model has
        seen every record staged up to this run's staging time (cdc_loaded_at: every staging
        model of the run stages at that time, and all of them ran before the model), or an
        empty string when the mark already covers every staged record, this run's included.
        Run after the model's rows are written: a run stopped before it leaves an older mark,
        and the next run then looks for itself.
    -#}
    {#- the mark already covers every staged record, this run's included: it holds -#}
    {%- if cdc_has_checked_everything_staged(model.name) -%}
        {{ return('') }}
    {%- endif -%}
    {{ return("alter table " ~ relation ~ " set tblproperties ('cdc.checked_through' = " ~ cdc_sql_string(_cdc_run_staging_time()) ~ ")") }}
{% endmacro %}


{% macro _cdc_run_staging_time() %}
    {#- This run's staging time (cdc_loaded_at) as Spark writes a timestamp as text: no trailing zeros in the fraction. -#}
    {{ return(run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f").rstrip('0').rstrip('.')) }}
{% endmacro %}


{% macro cdc_source_tables_of(target_table) %}
    {#- The staging partitions (lower-case source table names) of a registry entry's source tables; none when a source is a pattern (then every partition). -#}
    {%- if target_table.sources | selectattr('table_pattern') | list -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(target_table.sources | map(attribute='table') | unique | list) }}
{% endmacro %}


{% macro _cdc_existing_staging_models() %}
    {#-
        {name, relation, landings} of every staging model of var cdc_staging_models whose table
        exists and is not to be rebuilt; a model whose table does not exist yet (nothing staged
        in it before this run) is {name, relation: none}.
    -#}
    {%- set staging = [] -%}
    {%- for name in var('cdc_staging_models') -%}
        {%- set node = graph.nodes.get('model.' ~ project_name ~ '.' ~ name) -%}
        {%- if node is not none and node.config.get('full_refresh') is not true -%}
            {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
            {%- if relation is none -%}
                {%- do staging.append({'name': name, 'relation': none}) -%}
            {%- elif relation.is_table -%}
                {%- set landings = [] -%}
                {%- for source_id in node.depends_on.nodes if source_id.startswith('source.') -%}
                    {%- set source_node = graph.sources[source_id] -%}
                    {%- do landings.append(api.Relation.create(
                        database=source_node.database, schema=source_node.schema, identifier=source_node.identifier
                    )) -%}
                {%- endfor -%}
                {%- do staging.append({'name': name, 'relation': relation, 'landings': landings}) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(staging) }}
{% endmacro %}


{% macro _cdc_find_new_landed_files(staging, facts) %}
    {#-
        Fills facts.ingested_files {model: {landing: [files]}} from the index of ingested files
        (_cdc_ingested_files_index), and facts.landings_to_read {model: [landings with a new
        file]} with one probe over every landing.
    -#}
    {%- set ingested = _cdc_ingested_files_index(staging) -%}
    {%- for model in staging -%}
        {%- do facts.ingested_files.update({model.name: ingested.get(model.name, {})}) -%}
        {%- do facts.landings_to_read.update({model.name: []}) -%}
    {%- endfor -%}
    {%- set probe -%}
        {%- for model in staging %}
        {%- set model_loop = loop %}
        {%- for landing in model.landings %}
        select * from (
            select '{{ model.name }}' as staging_model, '{{ landing.identifier }}' as landing_table
            from {{ landing }} as landed
            where true {{ _cdc_files_not_in('landed', facts.ingested_files[model.name].get(landing.identifier, [])) }}
            limit 1
        )
        {{- ' union all' if not (model_loop.last and loop.last) }}
        {%- endfor %}
        {%- endfor %}
    {%- endset -%}
    {%- for staging_model, landing_table in run_query(probe).rows -%}
        {%- do facts.landings_to_read[staging_model].append(landing_table) -%}
    {%- endfor -%}
{% endmacro %}


{% macro _cdc_ingested_files_index(staging) %}
    {#-
        The landing files each of the staging models `staging` has ingested, {model: {landing:
        [files]}}, read from the index of ingested files (<staging schema>.
        cdc_ingested_landing_files: one row per file, with the staging time that ingested it,
        partitioned by staging model only) after bringing it up to date with the staging
        tables' partitions. Reading them from the staging tables would scan every record ever
        staged (1.5 s per landing on the benchmark's 1.1M records, growing with the history).
        The index is derived from the staging tables alone: a staging partition it lacks (a run
        killed after staging, before indexing) is added from that partition only, and the files
        of a staging partition that is gone (a full refresh) are left out, by rewriting that
        model's part of the index. One partition per model, each rewritten whole as one file,
        keeps the read the same size however many runs there were: an index with one partition
        per model and run took 3.3 s to read at 100 partitions and 28-42 s at 3,000 (Spark
        lists each partition's folder), the same 3,000 runs' rows as one file 2.1-2.2 s.
    -#}
    {%- set index = _cdc_ingested_files_relation(staging[0].relation) -%}
    {%- set ingested = _cdc_read_ingested_files(index) -%}
    {%- set rewritten = namespace(any=false) -%}
    {%- for model in staging -%}
        {#- staging times as dict keys on both sides: each lookup costs one step, not a list's length -#}
        {%- set staged = {} -%}
        {%- for partition in model.partitions -%}
            {%- do staged.update({partition.loaded_at: true}) -%}
        {%- endfor -%}
        {%- set indexed = ingested.loaded_at.get(model.name, {}) -%}
        {%- set missing = staged.keys() | reject('in', indexed) | list -%}
        {%- set gone = indexed.keys() | reject('in', staged) | list -%}
        {%- if staged | length == 0 and gone -%}
            {#- nothing staged any more: an insert of no rows would leave the partition as it is -#}
            {% call statement('cdc_ingested_files_drop') -%}
                alter table {{ index }} drop if exists partition (staging_model = '{{ model.name }}')
            {%- endcall %}
            {%- set rewritten.any = true -%}
        {%- elif missing or gone -%}
            {%- do _cdc_write_ingested_files(
                index, model.name, model.relation,
                keep_indexed=missing | length < staged | length,
                left_out=gone,
                added=none if missing | length == staged | length else missing,
            ) -%}
            {%- set rewritten.any = true -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if rewritten.any -%}
        {%- set ingested = _cdc_read_ingested_files(index) -%}
    {%- endif -%}
    {{ return(ingested.files) }}
{% endmacro %}


{% macro _cdc_read_ingested_files(index) %}
    {#- The index's rows as {files: {model: {landing: [files]}}, loaded_at: {model: {staging time as text: true}}}, in one query
        (a dict of staging times: looked up once per row and per staging partition, where a list would cost its length each time) -#}
    {%- set ingested = {'files': {}, 'loaded_at': {}} -%}
    {%- set ingested_query -%}
        select staging_model, landing_table, landing_file, string(loaded_at) as loaded_at from {{ index }}
    {%- endset -%}
    {%- for staging_model, landing_table, landing_file, loaded_at in run_query(ingested_query).rows -%}
        {%- do ingested.files.setdefault(staging_model, {}).setdefault(landing_table, []).append(landing_file) -%}
        {%- do ingested.loaded_at.setdefault(staging_model, {}).update({loaded_at: true}) -%}
    {%- endfor -%}
    {{ return(ingested) }}
{% endmacro %}


{% macro cdc_index_ingested_files(relation, created_in_run) %}
    {#-
        After a staging model wrote this run's records into `relation`, adds the landing files
        they came from to the index of ingested files (_cdc_ingested_files_index), reading only
        this run's staging partition and the model's part of the index; when the table was
        created in this run (its first build, a full refresh), that part holds this run's files
        only. A run stopped before this leaves the partition to the next run's start, which
        adds it.
    -#}
    {%- do _cdc_write_ingested_files(
        _cdc_ingested_files_relation(relation), model.name, relation,
        keep_indexed=not created_in_run,
        left_out=[],
        added=[_cdc_run_staging_time()],
    ) -%}
{% endmacro %}


{% macro _cdc_write_ingested_files(index, staging_model, staging_relation, keep_indexed, left_out, added) %}
    {#-
        Rewrites the part of the index of ingested files that belongs to `staging_model`, as one
        file: its rows there (when keep_indexed), but for those of the staging times
        `left_out`, and the files of `staging_relation`'s partitions `added` (staging times as
        text; none: all of them). insert overwrite in the table's dynamic mode writes to a
        folder of its own and replaces the model's partition by one rename when it commits:
        reading the partition it replaces is allowed, a rerun cannot double a row, and a run
        killed in the middle leaves the old part, or none, which the next run's start rebuilds
        from the staging table. Two staging models writing at once (threads > 1) each have
        their own folder.
    -#}
    {% call statement('cdc_ingested_files_write') -%}
        insert overwrite table {{ index }} partition (staging_model)
        select /*+ coalesce(1) */
            landing_table,
            landing_file,
            loaded_at,
            staging_model
        from (
            {%- if keep_indexed %}
            select landing_table, landing_file, loaded_at, staging_model
            from {{ index }}
            where staging_model = '{{ staging_model }}'
            {%- if left_out %}
                and loaded_at not in (
                    {%- for loaded_at in left_out %}timestamp'{{ loaded_at }}'{{ ', ' if not loop.last }}{% endfor -%}
                )
            {%- endif %}
            union all
            {%- endif %}
            select landing_table, landing_file, loaded_at, '{{ staging_model }}' as staging_model
            from {{ staging_relation }}
            {%- if added is not none %}
            where loaded_at in (
                {%- for loaded_at in added %}timestamp'{{ loaded_at }}'{{ ', ' if not loop.last }}{% endfor -%}
            )
            {%- endif %}
            group by landing_table, landing_file, loaded_at
        ) as ingested
    {%- endcall %}
{% endmacro %}


{% macro _cdc_ingested_files_relation(staging_relation) %}
    {#-
        The index of ingested files beside the staging table `staging_relation`, created when
        missing (from dbt's cache of relations: no statement when it exists). Creating it drops
        the index of the layout before (cdc_ingested_files: one partition per staging model and
        run, to November 2026): the new one is rebuilt from the staging tables at the next
        run's start.
    -#}
    {%- set index = api.Relation.create(
        database=staging_relation.database, schema=staging_relation.schema, identifier='cdc_ingested_landing_files', type='table'
    ) -%}
    {%- if adapter.get_relation(database=index.database, schema=index.schema, identifier=index.identifier) is not none -%}
        {{ return(index) }}
    {%- endif -%}
    {%- set before = adapter.get_relation(database=index.database, schema=index.schema, identifier='cdc_ingested_files') -%}
    {%- if before is not none -%}
        {%- do adapter.drop_relation(before) -%}
    {%- endif -%}
    {% call statement('cdc_ingested_files_create') -%}
        create table if not exists {{ index }} (
            landing_table string,
            landing_file string,
            loaded_at timestamp,
            staging_model string
        )
        using parquet
        partitioned by (staging_model)
        options ('partitionOverwriteMode' = 'dynamic')
    {%- endcall %}
    {%- do adapter.cache_added(index) -%}
    {{ return(index) }}
{% endmacro %}


{% macro _cdc_partitions(relation) %}
    {#- The partitions of `relation` as [{column: value as text}] (show partitions: metadata, no Spark job; a timestamp's `:` unescaped). -#}
    {%- set partitions = [] -%}
    {%- for row in run_query('show partitions ' ~ relation) -%}
        {%- set values = {} -%}
        {%- for part in row[0].split('/') -%}
            {%- set name_value = part.split('=', 1) -%}
            {%- do values.update({name_value[0]: name_value[1] | replace('%3A', ':')}) -%}
        {%- endfor -%}
        {%- do partitions.append(values) -%}
    {%- endfor -%}
    {{ return(partitions) }}
{% endmacro %}


{% macro _cdc_staged_through(staging) %}
    {#-
        {staging partition (lower-case source table name): newest loaded_at staged for it} over
        the staging models `staging` (those whose table exists), from their partitions. It is
        every staged record when the other staging models' tables do not exist yet (the caller
        checks): they hold nothing, and what this run stages into them is added as it is
        written (cdc_note_staged_partitions).
    -#}
    {%- set newest = {} -%}
    {%- for model in staging -%}
        {%- do _cdc_add_newest_staged(newest, model.partitions) -%}
    {%- endfor -%}
    {{ return(newest) }}
{% endmacro %}


{% macro _cdc_find_checked_through(facts) %}
    {#- Fills facts.checked_through {model: staging time or none} from the table property cdc.checked_through of each current-state table's state and of int_changes_checked. -#}
    {%- if facts.staged_through is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set relations = {} -%}
    {%- for target_table in cdc_target_tables() -%}
        {%- set node = graph.nodes.get('model.' ~ project_name ~ '.' ~ target_table.name) -%}
        {%- if node is not none and node.config.get('full_refresh') is not true -%}
            {%- do relations.update({target_table.name: api.Relation.create(
                database=node.database, schema=node.schema, identifier=node.alias ~ '__cdc_state', type='table'
            )}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set checked = graph.nodes.get('model.' ~ project_name ~ '.int_changes_checked') -%}
    {%- if checked is not none -%}
        {%- do relations.update({'int_changes_checked': api.Relation.create(
            database=checked.database, schema=checked.schema, identifier=checked.alias, type='table'
        )}) -%}
    {%- endif -%}
    {#- the tables that exist (dbt's cache: no statement), by schema: {schema: {lower-cased table name: model}} -#}
    {%- set existing = {} -%}
    {%- for name, relation in relations.items()
        if adapter.get_relation(database=relation.database, schema=relation.schema, identifier=relation.identifier) is not none -%}
        {%- do existing.setdefault(relation.schema, {}).update({relation.identifier | lower: name}) -%}
    {%- endfor -%}
    {#- one metadata statement per schema for the properties of all its tables, instead of one per table
        (a nothing-landed run on the sample read twelve tables' properties in twelve statements) -#}
    {%- for schema, names in existing.items() -%}
        {%- set tables = run_query("show table extended in " ~ schema ~ " like '" ~ names.keys() | sort | join('|') ~ "'") -%}
        {%- for row in tables if row[1] | lower in names -%}
            {%- set seen = _cdc_table_property(row[3], 'cdc.checked_through') -%}
            {%- if seen is not none and seen[:1].isdigit() -%}
                {%- do facts.checked_through.update({names[row[1] | lower]: seen}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
{% endmacro %}


{% macro _cdc_table_property(information, name) %}
    {#- The value of the table property `name` in the `information` text of `show table extended` (its line
        "Table Properties: [name=value, ...]"), or none. For properties whose values hold no ", ". -#}
    {%- set properties = _cdc_table_information(information, 'Table Properties') or '[]' -%}
    {%- for entry in properties[1:-1].split(', ') if entry.startswith(name ~ '=') -%}
        {{ return(entry[name | length + 1:]) }}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}


{% macro cdc_note_created_in_run() %}
    {#-
        Notes that the calling model's relation was created anew in this run (not appended to, nor
        left as it was), so that a view reading it is created again too (materialization view).
        Kept for this dbt invocation in its `graph` context.
    -#}
    {%- set created = graph.get('_cdc_created_in_run') -%}
    {%- if not created or created.invocation_id != invocation_id -%}
        {%- set created = {'invocation_id': invocation_id, 'nodes': []} -%}
        {%- do graph.update({'_cdc_created_in_run': created}) -%}
    {%- endif -%}
    {%- do created.nodes.append(model.unique_id) -%}
{% endmacro %}


{% macro _cdc_reads_relations_created_in_run() %}
    {#- True when a model the calling model reads was created anew in this run (cdc_note_created_in_run). -#}
    {%- set created = graph.get('_cdc_created_in_run') -%}
    {%- if not created or created.invocation_id != invocation_id -%}
        {{ return(false) }}
    {%- endif -%}
    {{ return(model.depends_on.nodes | select('in', created.nodes) | list | length > 0) }}
{% endmacro %}
